/** `vitrine plugins`: the installed plugins as JSON. */
import type { Command } from "commander";
import { Service } from "../service.ts";
import { installedSpecifiers } from "./plugins_file.ts";

/** Adds the `plugins` command. */
export function addPluginsCommand(program: Command): void {
  program.command("plugins")
    .description("List the installed plugins as JSON")
    .option("--all", "include Vitrine's built-in default plugins")
    .option("--plugins-dir <dir>", "also load the plugins in this directory")
    .action(async (flags: { all?: boolean; pluginsDir?: string }) => {
      const svc = new Service({
        plugins_dir: flags.pluginsDir ?? null,
        plugins: installedSpecifiers(),
      });
      try {
        await svc.invoke_startup();
        console.log(
          JSON.stringify(svc.registered.pluginListing({ includeBuiltin: !!flags.all }), null, 2),
        );
      } finally {
        await svc.close();
      }
    });
}
