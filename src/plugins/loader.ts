/**
 * Finds, imports and registers user plugins.
 *
 * Sources, in registration order (see registry.ts for what that means for call order):
 * 1. every `.ts`, `.js` and `.mjs` file directly inside `--plugins-dir`, sorted by file name;
 * 2. *installed* plugins: `--plugin SPECIFIER` options, then `VITRINE_PLUGINS` (comma-separated),
 *    then the `plugins` list of the metadata/config file. Specifiers are local paths (relative to
 *    the working directory), `file:`, `http:`/`https:` URLs, `npm:` or `jsr:` specifiers.
 *
 * The same module named twice is loaded once. Any failure is a `PluginError` naming the plugin.
 * Read-worker threads re-import the returned module URLs with `registerLoadedPlugins()` so that
 * `prepare_connection` can register SQL functions on their connections.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type PluginSource, resolvePluginSource } from "./plugin_source.ts";
import { PluginError } from "./plugin_info.ts";
import type { PluginRegistry } from "./registry.ts";

/** A plugin that was imported and registered; plain data, so it can be posted to a worker. */
export interface LoadedPlugin {
  name: string;
  /** Module specifier URL (`file:`, `http(s):`, `npm:`, `jsr:`). */
  url: string;
  version: string | null;
  staticDir: string | null;
  templatesDir: string | null;
  /** True unless the plugin came from `--plugins-dir`. */
  installed: boolean;
}

/** Where to look for plugins. */
export interface LoadPluginsOptions {
  /** `--plugins-dir`. */
  pluginsDir?: string | null;
  /** `--plugin` values. */
  specifiers?: string[];
  /** Comma-separated specifiers; defaults to the `VITRINE_PLUGINS` environment variable. */
  env?: string | null;
  /** The `plugins` list of the metadata/config file. */
  metadataPlugins?: string[];
  /** Base directory of relative local paths; defaults to `Deno.cwd()`. */
  cwd?: string;
}

const PLUGIN_FILE = /\.(?:ts|js|mjs)$/;

/** Imports and registers every plugin named by `options`; returns them in registration order. */
export async function loadPlugins(
  options: LoadPluginsOptions,
  registry: PluginRegistry,
): Promise<LoadedPlugin[]> {
  const cwd = options.cwd ?? Deno.cwd();
  const env = options.env === undefined ? Deno.env.get("VITRINE_PLUGINS") : options.env;
  const wanted: { specifier: string; installed: boolean }[] = [];
  if (options.pluginsDir) {
    for (const file of await pluginFiles(resolve(cwd, options.pluginsDir))) {
      wanted.push({ specifier: file, installed: false });
    }
  }
  const installed = [
    ...(options.specifiers ?? []),
    ...parsePluginList(env),
    ...(options.metadataPlugins ?? []),
  ];
  for (const specifier of installed) wanted.push({ specifier, installed: true });

  const loaded: LoadedPlugin[] = [];
  const seenUrls = new Set<string>();
  for (const { specifier, installed } of wanted) {
    const source = await locate(specifier, cwd);
    if (seenUrls.has(source.url)) continue;
    seenUrls.add(source.url);
    const module = await importPlugin(source, specifier);
    const plugin = describe(source, module, installed);
    registry.register(module, {
      name: plugin.name,
      version: plugin.version,
      source: plugin.url,
      staticDir: plugin.staticDir,
      templatesDir: plugin.templatesDir,
      installed,
    });
    loaded.push(plugin);
  }
  return loaded;
}

/**
 * Re-imports plugins loaded elsewhere (in a worker thread) and registers them in `registry`,
 * keeping names and order. Modules are cached per thread, so this is cheap after the first call.
 */
export async function registerLoadedPlugins(
  plugins: LoadedPlugin[],
  registry: PluginRegistry,
): Promise<void> {
  for (const plugin of plugins) {
    const module = await importPlugin(plugin, plugin.url);
    registry.register(module, { ...plugin, source: plugin.url });
  }
}

/**
 * Worker-side variant when only module URLs are known: imports each URL and registers it under
 * the URL as its name, so `callSync("prepare_connection", ...)` keeps the order, `specname` and
 * `tryfirst`/`trylast` of the main thread.
 */
export async function registerPluginUrls(urls: string[], registry: PluginRegistry): Promise<void> {
  for (const url of urls) {
    registry.register(await importPlugin({ name: url, url }, url), { name: url, source: url });
  }
}

/** The module URLs of loaded plugins, in order (what the read-worker pool imports). */
export function pluginModuleUrls(plugins: LoadedPlugin[]): string[] {
  return plugins.map((plugin) => plugin.url);
}

/** Splits a comma-separated specifier list such as `VITRINE_PLUGINS`; blanks are dropped. */
export function parsePluginList(text: string | null | undefined): string[] {
  if (!text) return [];
  return text.split(",").map((part) => part.trim()).filter(Boolean);
}

/** The `plugins` list of a metadata/config object (a mapping there is plugin configuration). */
export function pluginSpecifiersFromMetadata(metadata: Record<string, unknown> | null): string[] {
  const plugins = metadata?.plugins;
  return Array.isArray(plugins) ? plugins.filter((p): p is string => typeof p === "string") : [];
}

async function pluginFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && PLUGIN_FILE.test(entry.name) && !entry.name.endsWith(".d.ts")) {
        files.push(entry.name);
      }
    }
  } catch (error) {
    throw new PluginError(dir, `Cannot read plugins directory ${dir}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return files.sort().map((name) => join(dir, name));
}

async function locate(specifier: string, cwd: string): Promise<PluginSource> {
  try {
    return await resolvePluginSource(specifier, cwd);
  } catch (error) {
    const name = guessName(specifier);
    throw new PluginError(name, loadMessage(name, specifier, error), { cause: error });
  }
}

async function importPlugin(
  source: { name: string; url: string },
  specifier: string,
): Promise<Record<string, unknown>> {
  try {
    return await import(source.url);
  } catch (error) {
    throw new PluginError(source.name, loadMessage(source.name, specifier, error), {
      cause: error,
    });
  }
}

/** Final facts: manifest values first, then what the module exports about itself. */
function describe(
  source: PluginSource,
  module: Record<string, unknown>,
  installed: boolean,
): LoadedPlugin {
  const exported = (key: string) => typeof module[key] === "string" || module[key] instanceof URL;
  return {
    name: source.name,
    url: source.url,
    version: source.version ?? (typeof module.version === "string" ? module.version : null),
    staticDir: exported("static_dir")
      ? fromFileUrlOrPath(module.static_dir as string | URL)
      : source.staticDir,
    templatesDir: exported("templates_dir")
      ? fromFileUrlOrPath(module.templates_dir as string | URL)
      : source.templatesDir,
    installed,
  };
}

/** A path given as a path or a `file:` URL (`new URL("./static", import.meta.url)`). */
function fromFileUrlOrPath(value: string | URL): string {
  return String(value).startsWith("file:") ? fileURLToPath(value) : String(value);
}

function loadMessage(name: string, specifier: string, error: unknown): string {
  return `Cannot load plugin "${name}" from ${specifier}: ${messageOf(error)}`;
}

function messageOf(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "file not found";
  return error instanceof Error ? error.message : String(error);
}

function guessName(specifier: string): string {
  const last = specifier.replace(/[?#].*$/, "").split(/[/\\]/).filter(Boolean).at(-1) ?? specifier;
  return last.replace(/\.[^.]+$/, "");
}
