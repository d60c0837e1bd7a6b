/**
 * What every built-in provider does around its own deployment steps: read the common options,
 * check that its tools are installed (before writing anything), write the build context into
 * `--dir` or a temporary folder, run or print (`--dry-run`) its commands, and clean up.
 *
 * A plugin author's provider can follow the same shape (see `docs/publishing.md`).
 *
 * @module
 */
import type { Command } from "commander";
import { type BuildContext, writeBuildContext } from "./build_context.ts";
import { requireTool, Runner, type Tool } from "./commands.ts";
import { type PublishOptions, publishOptionsFrom } from "./options.ts";

/** One provider's deployment, given the written build context. */
export interface Deployment {
  /** `vitrine publish NAME`. */
  name: string;
  /** Tools it runs; each must be on PATH unless `--dry-run`. */
  tools: Tool[];
  /** Bake secrets into the image (see {@link BuildContextOptions.bakeSecrets}). */
  bakeSecrets: boolean;
  /** Serve the databases from LiteFS, given the provider's flags (see build_context.ts). */
  litefs?: (flags: Record<string, unknown>) => boolean;
  /** Writes its own files into the context and runs its commands through `runner`. */
  deploy(args: DeployArgs): Promise<void>;
}

/** What {@link Deployment.deploy} receives. */
export interface DeployArgs {
  options: PublishOptions;
  /** The provider's own flags, as commander parsed them. */
  flags: Record<string, unknown>;
  context: BuildContext;
  runner: Runner;
  /** Full paths of the provider's tools, in the order of `tools` (the name itself in dry-run). */
  tools: string[];
  print: (line: string) => void;
}

/** Adds `--dry-run` and `--dir` to a provider command. */
export function addProviderOptions(command: Command): Command {
  return command
    .option("--dry-run", "write the files and print the commands without running any")
    .option("--dir <dir>", "write the build context here (kept) instead of a temporary folder");
}

/** Returns the commander action running `deployment`. */
export function providerAction(
  deployment: Deployment,
): (files: string[], flags: Record<string, unknown>) => Promise<void> {
  return async (files, flags) => {
    const print = (line: string) => console.log(line);
    const dryRun = Boolean(flags.dryRun);
    const options = publishOptionsFrom(files, flags);
    const command = `vitrine publish ${deployment.name}`;
    const tools = deployment.tools.map((tool) =>
      dryRun ? tool.names[0] : requireTool(tool, command)
    );
    const keep = typeof flags.dir === "string" || dryRun;
    const dir = typeof flags.dir === "string"
      ? flags.dir
      : await Deno.makeTempDir({ prefix: `vitrine-${deployment.name}-` });
    try {
      const context = await writeBuildContext(options, {
        dir,
        bakeSecrets: deployment.bakeSecrets,
        print,
        litefs: deployment.litefs?.(flags) ?? false,
      });
      const runner = new Runner(dryRun, print);
      await deployment.deploy({ options, flags, context, runner, tools, print });
      if (dryRun) print(`Dry run: nothing was run. The files are in ${context.dir}`);
    } finally {
      if (!keep) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  };
}

/** The `--secret`/`--plugin-secret` values, to mask in printed commands. */
export function secretValues(context: BuildContext): string[] {
  return Object.values(context.secrets);
}

/** Tools the built-in providers use. */
export const TOOLS = {
  gcloud: {
    names: ["gcloud"],
    label: "the Google Cloud CLI",
    install: "https://cloud.google.com/sdk/docs/install",
  },
  flyctl: {
    names: ["flyctl", "fly"],
    label: "the Fly.io CLI",
    install: "https://fly.io/docs/flyctl/install/",
  },
  docker: {
    names: ["docker", "podman"],
    label: "a container engine",
    install: "https://docs.docker.com/get-docker/ or https://podman.io/",
  },
  kubectl: {
    names: ["kubectl"],
    label: "the Kubernetes CLI",
    install: "https://kubernetes.io/docs/tasks/tools/",
  },
} satisfies Record<string, Tool>;
