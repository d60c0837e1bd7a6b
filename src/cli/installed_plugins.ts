/**
 * The plugins "installed in the environment" (`VITRINE_PLUGINS`), loaded before the CLI is
 * built so their `register_commands` and `publish_subcommand` hooks can add commands.
 */
import { PluginRegistry } from "../plugins/registry.ts";
import { loadPlugins } from "../plugins/loader.ts";

/** A registry holding the installed plugins (empty when `VITRINE_PLUGINS` is unset). */
export async function installedPluginRegistry(): Promise<PluginRegistry> {
  const registry = new PluginRegistry();
  await loadPlugins({ pluginsDir: null, specifiers: [], metadataPlugins: [] }, registry);
  return registry;
}
