/**
 * `vitrine publish fly`: deploys to Fly.io with `flyctl`.
 *
 * ```sh
 * vitrine publish fly data.db --app my-data --region ams
 * ```
 *
 * Writes `fly.toml` into the build context (the app, its primary region, the VM's memory, an
 * HTTPS service on Vitrine's port with a readiness check on `/-/health`), creates the app
 * when `flyctl apps list` does not show it, stages the secrets with `flyctl secrets set` (never
 * in the image) and runs `flyctl deploy`, which builds the Dockerfile remotely.
 *
 * With `--litefs` the databases are mutable and replicated by LiteFS (`litefs.ts`): fly.toml
 * adds the `litefs` volume and points the service at LiteFS's proxy, and a new app is attached
 * to Fly's Consul (which elects the primary).
 *
 * @module
 */
import { join } from "node:path";
import type { HookArgs } from "../../../plugins/hookspecs.ts";
import {
  addProviderOptions,
  type DeployArgs,
  providerAction,
  secretValues,
  TOOLS,
} from "./provider.ts";
import { LITEFS_DATA } from "./litefs.ts";

/** Adds `fly` to `vitrine publish` (unless a plugin added one first). */
export function publish_subcommand({ publish }: HookArgs<"publish_subcommand">): void {
  if (publish.commands.some((command) => command.name() === "fly")) return;
  addProviderOptions(publish.command("fly"))
    .description("Publish to Fly.io (flyctl deploy)")
    .requiredOption("--app <name>", "Fly app to create or update")
    .option("--region <code>", "primary region, e.g. ams")
    .option("--vm-memory <size>", "memory of each machine, e.g. 512mb or 1gb", "256mb")
    .option("--org <slug>", "organisation for a new app")
    .option(
      "--litefs",
      "serve the databases mutable, replicated by LiteFS (writes go to the primary machine)",
    )
    .action(providerAction({
      name: "fly",
      tools: [TOOLS.flyctl],
      bakeSecrets: false,
      litefs: (flags) => Boolean(flags.litefs),
      deploy,
    }));
}

/** What fly.toml is written from. */
export interface FlyConfig {
  app: string;
  region: string | null;
  memory: string;
  port: number;
  /** Add the LiteFS volume (and give draining machines time to finish). */
  litefs?: boolean;
}

/** The text of fly.toml. */
export function flyToml(config: FlyConfig): string {
  const lines = [
    "# Written by vitrine publish fly",
    `app = ${tomlString(config.app)}`,
  ];
  if (config.region) lines.push(`primary_region = ${tomlString(config.region)}`);
  lines.push(
    "# Vitrine drains on SIGTERM: running requests and queued writes finish first.",
    'kill_signal = "SIGTERM"',
    'kill_timeout = "35s"',
    "",
    "[build]",
    '  dockerfile = "Dockerfile"',
    "",
  );
  if (config.litefs) {
    lines.push(
      "# LiteFS keeps the replicated databases on this volume (one per machine).",
      "[mounts]",
      '  source = "litefs"',
      `  destination = ${tomlString(LITEFS_DATA)}`,
      "",
    );
  }
  lines.push(
    "[http_service]",
    `  internal_port = ${config.port}`,
    "  force_https = true",
    '  auto_stop_machines = "stop"',
    "  auto_start_machines = true",
    // The primary must stay up to take writes.
    `  min_machines_running = ${config.litefs ? 1 : 0}`,
    "",
    "  [[http_service.checks]]",
    '    method = "GET"',
    '    path = "/-/health"',
    '    interval = "15s"',
    '    timeout = "5s"',
    '    grace_period = "10s"',
    "",
    "[[vm]]",
    `  memory = ${tomlString(config.memory)}`,
    "",
  );
  return lines.join("\n");
}

async function deploy({ flags, context, runner, tools: [flyctl], print }: DeployArgs) {
  const app = String(flags.app);
  await Deno.writeTextFile(
    join(context.dir, "fly.toml"),
    flyToml({
      app,
      region: typeof flags.region === "string" ? flags.region : null,
      memory: String(flags.vmMemory),
      port: context.port,
      litefs: Boolean(flags.litefs),
    }),
  );
  const listing = await runner.run({
    cmd: flyctl,
    args: ["apps", "list", "--json"],
    capture: true,
  });
  const create = ["apps", "create", app, ...(flags.org ? ["--org", String(flags.org)] : [])];
  // LiteFS elects its primary through Consul: a new app is attached once.
  const consul = ["consul", "attach", "--app", app];
  if (runner.dryRun) {
    print("  (the next command runs only when the app does not exist yet)");
    await runner.run({ cmd: flyctl, args: create });
    if (flags.litefs) await runner.run({ cmd: flyctl, args: consul });
  } else if (!appNames(listing).includes(app)) {
    await runner.run({ cmd: flyctl, args: create });
    if (flags.litefs) await runner.run({ cmd: flyctl, args: consul });
  }
  const secrets = Object.entries(context.secrets).map(([name, value]) => `${name}=${value}`);
  if (secrets.length) {
    await runner.run({
      cmd: flyctl,
      args: ["secrets", "set", "--app", app, "--stage", ...secrets],
      secrets: secretValues(context),
    });
  }
  await runner.run({
    cmd: flyctl,
    args: ["deploy", "--app", app, "--config", "fly.toml", "--remote-only"],
    cwd: context.dir,
  });
}

/** App names from `flyctl apps list --json` (a list of objects with `Name` or `name`). */
function appNames(json: string): string[] {
  try {
    const apps = JSON.parse(json);
    if (!Array.isArray(apps)) return [];
    return apps.map((app) => String(app?.Name ?? app?.name ?? ""));
  } catch {
    throw new Error(
      `flyctl apps list --json printed something that is not JSON: ${json.slice(0, 200)}`,
    );
  }
}

/** A TOML basic string (the JSON escapes are valid TOML escapes). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}
