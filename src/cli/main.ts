/**
 * Command-line entry: `vitrine [serve] FILES…` (serve is the default command), `inspect`,
 * `plugins`, `create-token`, `publish <provider>`, plus commands added through
 * `register_commands` by installed plugins (`--plugin`, `VITRINE_PLUGINS`, the metadata file's
 * `plugins` list; never `--plugins-dir`, see installed_plugins.ts).
 */
import { Command, CommanderError, Option } from "commander";
import { collect, joinMultiValueOptions } from "./argv.ts";
import { addServeCommand } from "./serve.ts";
import { queryParamArgs } from "./query.ts";
import { addInspectCommand } from "./inspect.ts";
import { addPluginsCommand } from "./plugins_command.ts";
import { addCreateTokenCommand } from "./create_token.ts";
import { addPublishCommand } from "./publish.ts";
import { addPackageCommand } from "./package.ts";
import { addInstallCommands } from "./install.ts";
import { addInsertCommand } from "./insert.ts";
import { installedPluginRegistry } from "./installed_plugins.ts";
import { VERSION } from "../version.ts";
import { CliExit } from "./exit.ts";

/** Runs the CLI with `args` (without the program name); resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  const program = new Command("vitrine")
    .description("Publish SQLite databases as a website and a JSON API")
    .version(VERSION, "--version")
    .exitOverride()
    .configureOutput({ writeErr: (text) => console.error(text.trimEnd()) });
  let registry;
  try {
    registry = await installedPluginRegistry(args);
  } catch (error) {
    console.error(`Error: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
  addServeCommand(program, args);
  addInspectCommand(program);
  addPluginsCommand(program);
  addCreateTokenCommand(program);
  addPackageCommand(program);
  addInstallCommands(program);
  addInsertCommand(program);
  await addPublishCommand(program, registry);
  const builtIn = new Set(program.commands);
  await registry.call("register_commands", { cli: program });
  for (const command of program.commands) {
    if (!builtIn.has(command)) acceptPluginOption(command);
  }
  try {
    await program.parseAsync(joinMultiValueOptions(queryParamArgs(args)), { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliExit) {
      if (error.message) console.error(error.message);
      return error.code;
    }
    console.error(`Error: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
}

/**
 * A plugin's command accepts `--plugin SPECIFIER` and `-m/--metadata FILE` (hidden, unless the
 * command defines them itself), so `vitrine mycommand --plugin ./my_plugin.ts` and `vitrine
 * mycommand -m metadata.yaml` can name the plugin that provides it: installedPluginRegistry()
 * has already loaded every `--plugin` and the metadata file's `plugins` list.
 */
function acceptPluginOption(command: Command): void {
  const taken = (flag: string) =>
    command.options.some((option) => option.long === flag || option.short === flag);
  if (!taken("--plugin")) {
    command.addOption(
      new Option("--plugin <specifier>", "plugin providing this command").argParser(collect)
        .default([]).hideHelp(),
    );
  }
  if (!taken("-m") && !taken("--metadata")) {
    command.addOption(
      new Option("-m, --metadata <file>", "metadata file listing plugins").hideHelp(),
    );
  }
}
