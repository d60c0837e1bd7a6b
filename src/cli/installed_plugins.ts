/**
 * The plugins "installed in the environment", loaded before the CLI is built so that their
 * `register_commands` and `publish_subcommand` hooks can add commands. Installed means:
 *
 * 1. `--plugin SPECIFIER` values anywhere on the command line;
 * 2. `VITRINE_PLUGINS` (comma-separated);
 * 3. the `plugins` list of the `-m/--metadata` file named on the command line;
 * 4. the plugins `vitrine install` recorded (plugins_file.ts). One of these that fails to load
 *    is reported as a warning here, so `vitrine uninstall` still works; `serve` fails on it.
 *
 * `--plugins-dir` plugins are never installed (SPEC: `register_commands` "works only for plugins
 * installed in the environment, not with `--plugins-dir`"), so they add no commands.
 *
 * @module
 */
import { PluginRegistry } from "../plugins/registry.ts";
import { loadPlugins, pluginSpecifiersFromMetadata } from "../plugins/loader.ts";
import { loadMetadataFiles } from "../config/metadata.ts";
import { registerDefaultPlugins } from "../plugins/defaults/mod.ts";
import { type InstalledPlugin, readInstalledPlugins } from "./plugins_file.ts";

/** What the command line says about installed plugins, read before commander parses it. */
export interface InstalledPluginArgs {
  /** `--plugin` values. */
  specifiers: string[];
  /** The `-m/--metadata` and `-c/--config` files, in order. */
  metadataFiles: string[];
}

/**
 * Pre-scans `argv` for `--plugin X`, `--plugin=X`, `-m X`, `--metadata X`, `--metadata=X` and
 * the same forms of `-c`/`--config` (a plugins list may sit in either file).
 */
export function scanInstalledPluginArgs(argv: string[]): InstalledPluginArgs {
  const specifiers: string[] = [];
  const metadataFiles: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") break;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, null];
    const value = () => inline ?? argv[++i];
    if (flag === "--plugin") {
      const specifier = value();
      if (specifier !== undefined) specifiers.push(specifier);
    } else if (["-m", "--metadata", "-c", "--config"].includes(flag)) {
      const file = value();
      if (file !== undefined) metadataFiles.push(file);
    }
  }
  return { specifiers, metadataFiles };
}

/**
 * A registry holding the installed plugins of `argv` and the environment (empty when there are
 * none). A metadata file that cannot be read is left for the command to report.
 */
export async function installedPluginRegistry(argv: string[] = []): Promise<PluginRegistry> {
  const { specifiers, metadataFiles } = scanInstalledPluginArgs(argv);
  let metadataPlugins: string[] = [];
  if (metadataFiles.length) {
    try {
      metadataPlugins = pluginSpecifiersFromMetadata((await loadMetadataFiles(metadataFiles))!);
    } catch {
      // `serve` (or `publish`) reads the file again and reports the error properly.
    }
  }
  const registry = new PluginRegistry();
  // The built-in publish providers are default plugins; user plugins registered after them
  // are called first, so a user's provider of the same name takes its place.
  registerDefaultPlugins(registry);
  await loadPlugins({ pluginsDir: null, specifiers, metadataPlugins }, registry);
  for (const plugin of readInstalledPluginsQuietly()) {
    try {
      await loadPlugins({ specifiers: [plugin.specifier], env: null }, registry);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(`Warning: ${message} (vitrine uninstall ${plugin.name} removes it)`);
    }
  }
  return registry;
}

function readInstalledPluginsQuietly(): InstalledPlugin[] {
  try {
    return readInstalledPlugins();
  } catch (error) {
    console.error(`Warning: ${error instanceof Error ? error.message : error}`);
    return [];
  }
}
