/**
 * `vitrine publish docker`: builds the image with the local container engine (`docker`, or
 * `podman` when Docker is not installed) and, with `--push`, pushes it to its registry.
 *
 * ```sh
 * vitrine publish docker data.db --tag registry.example.com/team/data:1 --push
 * ```
 *
 * Secrets are not baked into the image (it may be pushed); the command to run it with them is
 * printed instead.
 *
 * @module
 */
import { basename } from "node:path";
import type { HookArgs } from "../../../plugins/hookspecs.ts";
import { shellQuote } from "./commands.ts";
import { addProviderOptions, type DeployArgs, providerAction, TOOLS } from "./provider.ts";

/** Adds `docker` to `vitrine publish` (unless a plugin added one first). */
export function publish_subcommand({ publish }: HookArgs<"publish_subcommand">): void {
  if (publish.commands.some((command) => command.name() === "docker")) return;
  addProviderOptions(publish.command("docker"))
    .description("Build a container image (docker or podman), and push it with --push")
    .requiredOption("-t, --tag <image>", "image name and tag, e.g. registry.example.com/data:1")
    .option("--push", "push the image after building it")
    .action(providerAction({ name: "docker", tools: [TOOLS.docker], bakeSecrets: false, deploy }));
}

async function deploy({ flags, context, runner, tools: [engine], print }: DeployArgs) {
  const tag = String(flags.tag);
  await runner.run({ cmd: engine, args: ["build", "--tag", tag, context.dir] });
  if (flags.push) await runner.run({ cmd: engine, args: ["push", tag] });
  const env = Object.keys(context.secrets).flatMap((name) => ["-e", `${name}=...`]);
  const run = [
    basename(engine),
    "run",
    "--rm",
    "-p",
    `${context.port}:${context.port}`,
    ...env,
    tag,
  ];
  print(`Run it with: ${run.map(shellQuote).join(" ")}`);
}
