/**
 * `vitrine install SPEC…` and `vitrine uninstall NAME…`: plugins recorded in the plugins file
 * (see plugins_file.ts). Installing imports the plugin once — which checks that it loads and
 * names it, and puts remote and npm modules in Deno's cache — then records it.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, resolve } from "node:path";
import { loadPlugins } from "../plugins/loader.ts";
import { PluginRegistry } from "../plugins/registry.ts";
import { CliExit } from "./exit.ts";
import {
  type InstalledPlugin,
  pluginsFilePath,
  readInstalledPlugins,
  writeInstalledPlugins,
} from "./plugins_file.ts";

/** Adds `install` and `uninstall`. */
export function addInstallCommands(program: Command): void {
  program.command("install")
    .description("Install plugins: npm: or jsr: packages, https: URLs or local paths")
    .argument("<specs...>", "plugins to install")
    .action(async (specs: string[]) => {
      const path = requirePluginsFile();
      const plugins = readInstalledPlugins(path);
      for (const spec of specs) {
        const plugin = await inspectPlugin(spec);
        const index = plugins.findIndex((p) => p.name === plugin.name);
        if (index >= 0) {
          const previous = plugins[index].specifier;
          plugins[index] = plugin;
          console.log(
            previous === plugin.specifier
              ? `${plugin.name} was already installed (${plugin.specifier})`
              : `Replaced ${plugin.name}: ${previous} → ${plugin.specifier}`,
          );
        } else {
          plugins.push(plugin);
          console.log(`Installed ${plugin.name}${plugin.version ? ` ${plugin.version}` : ""}`);
        }
      }
      writeInstalledPlugins(plugins, path);
    });

  program.command("uninstall")
    .description("Uninstall plugins installed with `vitrine install`")
    .argument("<names...>", "plugin names (as `vitrine plugins` shows them) or specifiers")
    .action((names: string[]) => {
      const path = requirePluginsFile();
      const plugins = readInstalledPlugins(path);
      const missing = names.filter((name) =>
        !plugins.some((p) => p.name === name || p.specifier === name)
      );
      if (missing.length) {
        const known = plugins.map((p) => p.name).join(", ") || "none";
        throw new CliExit(1, `Error: not installed: ${missing.join(", ")} (installed: ${known})`);
      }
      const kept = plugins.filter((p) => !names.includes(p.name) && !names.includes(p.specifier));
      writeInstalledPlugins(kept, path);
      for (const plugin of plugins.filter((p) => !kept.includes(p))) {
        console.log(`Uninstalled ${plugin.name}`);
      }
    });
}

/** Imports `spec` in a scratch registry; returns what to record. */
async function inspectPlugin(spec: string): Promise<InstalledPlugin> {
  const specifier = /^(npm|jsr|https?|file):/.test(spec) || isAbsolute(spec) ? spec : resolve(spec);
  const registry = new PluginRegistry();
  let loaded;
  try {
    [loaded] = await loadPlugins({ specifiers: [specifier], env: null }, registry);
  } catch (error) {
    throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
  }
  return { name: loaded.name, specifier, version: loaded.version };
}

function requirePluginsFile(): string {
  const path = pluginsFilePath();
  if (!path) {
    throw new CliExit(
      1,
      "Error: no configuration folder: set HOME, XDG_CONFIG_HOME or VITRINE_CONFIG_HOME",
    );
  }
  return path;
}
