/**
 * `vitrine package FILES…`: writes a Docker build context (see
 * `src/plugins/defaults/publish/build_context.ts`) and builds it with `docker build` (or `podman
 * build`), or with `--dir` only writes it.
 *
 * @module
 */
import type { Command } from "commander";
import { writeBuildContext } from "../plugins/defaults/publish/build_context.ts";
import { requireTool, Runner } from "../plugins/defaults/publish/commands.ts";
import { publishOptionsFrom } from "../plugins/defaults/publish/options.ts";
import { TOOLS } from "../plugins/defaults/publish/provider.ts";
import { collect } from "./argv.ts";

/** Adds the `package` command. */
export function addPackageCommand(program: Command): void {
  program.command("package")
    .description("Build a container image serving the databases (docker or podman)")
    .argument("<files...>", "database files to package (served immutable)")
    .option("-t, --tag <image>", "name and tag of the image", "vitrine")
    .option("--dir <dir>", "only write the build context into this folder; build nothing")
    .option("-m, --metadata <file>", "metadata file (JSON or YAML)")
    .option("--template-dir <dir>", "templates to include")
    .option("--plugins-dir <dir>", "plugins to include")
    .option("--static <mount:dir>", "static directory to include and serve at /mount/", collect, [])
    .option(
      "--install <plugin>",
      "plugin to install in the image (npm:, https: or a path)",
      collect,
      [],
    )
    .option("--secret <secret>", "secret for signed cookies and tokens (stored in the image)")
    .option("-s, --setting <name value>", "a setting, e.g. -s default_page_size 50", collect, [])
    .option("--version-note <note>", "note shown next to the version on /-/versions")
    .option("--extra-options <options>", "more `vitrine serve` options for the image")
    .option("--branch <branch>", "build the image's Vitrine from this git branch of the checkout")
    .action(async (files: string[], flags: Record<string, unknown>) => {
      const options = publishOptionsFrom(files, flags);
      const print = (line: string) => console.log(line);
      if (typeof flags.dir === "string") {
        const context = await writeBuildContext(options, {
          dir: flags.dir,
          bakeSecrets: true,
          print,
        });
        print(`Build it with: docker build --tag ${flags.tag} ${context.dir}`);
        return;
      }
      const engine = requireTool(
        {
          ...TOOLS.docker,
          install: `${TOOLS.docker.install}; or use --dir to only write the files`,
        },
        "vitrine package",
      );
      const dir = await Deno.makeTempDir({ prefix: "vitrine-package-" });
      try {
        const context = await writeBuildContext(options, { dir, bakeSecrets: true, print });
        if (options.secret) print("Note: the secret is stored in the image (ENV VITRINE_SECRET).");
        await new Runner(false, print).run({
          cmd: engine,
          args: ["build", "--tag", String(flags.tag), context.dir],
          secrets: options.secret ? [options.secret] : [],
        });
        print(`Built ${flags.tag}. Run it with: docker run --rm -p 8001:8001 ${flags.tag}`);
      } finally {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    });
}
