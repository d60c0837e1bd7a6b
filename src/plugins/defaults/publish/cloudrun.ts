/**
 * `vitrine publish cloudrun`: builds the image with Cloud Build and deploys it to Cloud Run.
 *
 * ```sh
 * vitrine publish cloudrun data.db --service my-data --region europe-west1
 * ```
 *
 * Runs `gcloud builds submit --tag IMAGE CONTEXT`, then `gcloud run deploy SERVICE --image IMAGE`
 * with the region, memory, CPU and instance limit given, and the secrets as environment variables
 * of the service (not baked into the image). The project is `--project` or gcloud's default.
 *
 * Also a worked example of a provider plugin: a `publish_subcommand` implementation that adds
 * one command to the `publish` group.
 *
 * @module
 */
import type { HookArgs } from "../../../plugins/hookspecs.ts";
import {
  addProviderOptions,
  type DeployArgs,
  providerAction,
  secretValues,
  TOOLS,
} from "./provider.ts";

/** Adds `cloudrun` to `vitrine publish` (unless a plugin added one first). */
export function publish_subcommand({ publish }: HookArgs<"publish_subcommand">): void {
  if (publish.commands.some((command) => command.name() === "cloudrun")) return;
  addProviderOptions(publish.command("cloudrun"))
    .description("Publish to Google Cloud Run (builds with Cloud Build)")
    .requiredOption("--service <name>", "Cloud Run service to create or update")
    .option("--project <id>", "Google Cloud project (default: gcloud's configured project)")
    .option("--region <region>", "region, e.g. europe-west1")
    .option("--memory <size>", "memory per instance, e.g. 1Gi")
    .option("--cpu <count>", "CPUs per instance, e.g. 2")
    .option("--max-instances <count>", "upper limit of instances")
    .option("--image <name>", "image name (default: gcr.io/PROJECT/SERVICE)")
    .action(providerAction({
      name: "cloudrun",
      tools: [TOOLS.gcloud],
      bakeSecrets: false,
      deploy,
    }));
}

async function deploy({ flags, context, runner, tools: [gcloud] }: DeployArgs): Promise<void> {
  const service = String(flags.service);
  let project = typeof flags.project === "string" ? flags.project : null;
  if (!project) {
    const answer = await runner.run({
      cmd: gcloud,
      args: ["config", "get-value", "project"],
      capture: true,
    });
    project = answer.trim() || (runner.dryRun ? "PROJECT" : null);
    if (!project) {
      throw new Error(
        "No Google Cloud project: pass --project or run gcloud config set project ID",
      );
    }
  }
  const image = typeof flags.image === "string" ? flags.image : `gcr.io/${project}/${service}`;
  const projectArgs = flags.project ? ["--project", project] : [];
  await runner.run({
    cmd: gcloud,
    args: ["builds", "submit", "--tag", image, "--quiet", ...projectArgs, context.dir],
  });
  const args = [
    "run",
    "deploy",
    service,
    "--image",
    image,
    "--platform",
    "managed",
    "--allow-unauthenticated",
    "--port",
    String(context.port),
    "--quiet",
    ...projectArgs,
  ];
  for (const flag of ["region", "memory", "cpu", "max-instances"]) {
    const value = flags[flag.replace(/-(\w)/g, (_, c) => c.toUpperCase())];
    if (typeof value === "string") args.push(`--${flag}`, value);
  }
  const env = Object.entries(context.secrets).map(([name, value]) => `${name}=${value}`);
  if (env.length) args.push("--set-env-vars", envList(env));
  await runner.run({ cmd: gcloud, args, secrets: secretValues(context) });
}

/**
 * `A=1,B=2` for gcloud's dict flags; when a value holds a comma, gcloud's `^D^` prefix picks
 * another delimiter D that no value contains.
 */
export function envList(pairs: string[]): string {
  if (!pairs.some((pair) => pair.includes(","))) return pairs.join(",");
  const delimiter = ["@", "#", "|", ";", "~", "%"].find((d) => !pairs.some((p) => p.includes(d)));
  if (!delimiter) throw new Error("A secret contains every delimiter gcloud can use");
  return `^${delimiter}^${pairs.join(delimiter)}`;
}
