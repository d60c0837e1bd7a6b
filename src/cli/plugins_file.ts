/**
 * The plugins `vitrine install` recorded: `plugins.json` in Vitrine's configuration folder,
 * `$XDG_CONFIG_HOME/vitrine/` (`~/.config/vitrine/` when XDG_CONFIG_HOME is unset), or the
 * folder named by `VITRINE_CONFIG_HOME`. `vitrine serve`, `vitrine plugins` and plugin commands
 * load every plugin listed there.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** One installed plugin. */
export interface InstalledPlugin {
  /** The plugin's name (package name, or file/folder name): what `uninstall` takes. */
  name: string;
  /** What is imported: `npm:`/`jsr:` specifier, `https:` URL, or an absolute path. */
  specifier: string;
  /** Version when known (package manifest or an exact pin). */
  version: string | null;
}

/** The configuration folder (see the module comment); null when there is no home folder. */
export function configHome(env = Deno.env.toObject()): string | null {
  if (env.VITRINE_CONFIG_HOME) return env.VITRINE_CONFIG_HOME;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "vitrine");
  if (env.HOME) return join(env.HOME, ".config", "vitrine");
  return null;
}

/** The plugins file's path, or null when there is no configuration folder. */
export function pluginsFilePath(): string | null {
  const home = configHome();
  return home ? join(home, "plugins.json") : null;
}

/** The installed plugins (an empty list when the file does not exist). */
export function readInstalledPlugins(path = pluginsFilePath()): InstalledPlugin[] {
  if (!path) return [];
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`The plugins file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const list = (data as { plugins?: unknown })?.plugins;
  if (!Array.isArray(list)) throw new Error(`The plugins file ${path} has no "plugins" list`);
  return list.filter((entry): entry is InstalledPlugin =>
    typeof entry?.name === "string" && typeof entry?.specifier === "string"
  ).map((entry) => ({ ...entry, version: entry.version ?? null }));
}

/** The specifiers of the installed plugins, in installation order. */
export function installedSpecifiers(): string[] {
  return readInstalledPlugins().map((plugin) => plugin.specifier);
}

/** Writes the plugins file (creating the folder), replacing it atomically. */
export function writeInstalledPlugins(plugins: InstalledPlugin[], path: string): void {
  Deno.mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  Deno.writeTextFileSync(temporary, JSON.stringify({ plugins }, null, 2) + "\n");
  Deno.renameSync(temporary, path);
}
