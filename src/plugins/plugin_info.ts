/**
 * What the registry knows about one plugin, the `/-/plugins` listing shape, and the one error
 * type raised while loading or registering plugins.
 *
 * @module
 */

/** Facts about a registered plugin, given to `PluginRegistry.register()`. */
export interface PluginInfo {
  /** Package name, or the file stem for a `--plugins-dir` file; unique in a registry. */
  name: string;
  /** Version from package.json / deno.json or an exported `version` const; null when unknown. */
  version?: string | null;
  /** Module specifier URL the plugin was imported from (workers import it again). */
  source?: string | null;
  /** Absolute path of the bundled `static/` directory, served at `/-/static-plugins/<name>/`. */
  staticDir?: string | null;
  /** Absolute path of the bundled `templates/` directory, searched after `--template-dir`. */
  templatesDir?: string | null;
  /** True for the built-in default plugins, hidden from `/-/plugins` unless `?all=1`. */
  builtin?: boolean;
  /** True for plugins installed by `--plugin`, `VITRINE_PLUGINS` or the config `plugins` list. */
  installed?: boolean;
}

/** One entry of `/-/plugins.json`, in the reference key order. */
export interface PluginListing {
  name: string;
  static: boolean;
  templates: boolean;
  version: string | null;
  hooks: string[];
}

/** A plugin that cannot be loaded or registered; the message names the plugin. */
export class PluginError extends Error {
  override name = "PluginError";
  /** The plugin's name as it would appear on `/-/plugins`. */
  readonly plugin: string;

  constructor(plugin: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.plugin = plugin;
  }
}

/** The `/-/plugins` entry for a plugin and the hook names it implements. */
export function pluginListing(info: PluginInfo, hooks: Iterable<string>): PluginListing {
  return {
    name: info.name,
    static: Boolean(info.staticDir),
    templates: Boolean(info.templatesDir),
    version: info.version ?? null,
    hooks: [...new Set(hooks)].sort(),
  };
}
