/**
 * Configuration-directory mode: `vitrine serve mydir/` where the directory holds databases,
 * `metadata.json|yml|yaml`, a configuration file (`vitrine.json|yml|yaml`, or Datasette 1.0's
 * `datasette.json|yml|yaml`), `settings.json`, `templates/`, `plugins/`, `static/` and
 * optionally `inspect-data.json`. Produces plain options for the CLI.
 */
import { join } from "node:path";
import type { MetadataDict } from "./metadata.ts";
import { loadConfiguration } from "./config_file.ts";
import { parseSettings } from "./settings.ts";

/** What a configuration directory contributes to `serve`. */
export interface ConfigDirOptions {
  config_dir: string;
  /** Database files opened mutable. */
  files: string[];
  /** Database files opened immutable (all of them when `inspect-data.json` exists). */
  immutables: string[];
  metadata: MetadataDict | null;
  metadata_path: string | null;
  /** The configuration file found (merged into `metadata` after the metadata file), or null. */
  config_path: string | null;
  /** Raw values from `settings.json`, already validated against the settings table. */
  settings: Record<string, unknown>;
  template_dir: string | null;
  plugins_dir: string | null;
  /** `static/` is served at `/static/`. */
  static_mounts: { mount: string; dir: string }[];
  /** Parsed `inspect-data.json` (`{name: {hash, size, file, tables}}`), or null. */
  inspect_data: Record<string, unknown> | null;
}

const DATABASE_EXTENSIONS = [".db", ".sqlite", ".sqlite3"];
const METADATA_NAMES = ["metadata.json", "metadata.yml", "metadata.yaml"];
const CONFIG_NAMES = ["vitrine", "datasette"].flatMap((name) =>
  ["json", "yml", "yaml"].map((extension) => `${name}.${extension}`)
);

/** True when `path` is a directory (so the CLI should use configuration-directory mode). */
export async function isConfigDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** Read a configuration directory into CLI options; malformed files throw with their path. */
export async function loadConfigDir(dir: string): Promise<ConfigDirOptions> {
  const entries = new Map<string, Deno.DirEntry>();
  for await (const entry of Deno.readDir(dir)) entries.set(entry.name, entry);
  const isFile = (name: string) => entries.get(name)?.isFile === true;
  const isDir = (name: string) => entries.get(name)?.isDirectory === true;

  const databases = [...entries.values()]
    .filter((e) => e.isFile && DATABASE_EXTENSIONS.some((ext) => e.name.endsWith(ext)))
    .map((e) => join(dir, e.name))
    .sort();

  const inspect_data = isFile("inspect-data.json")
    ? await readJsonObject(join(dir, "inspect-data.json"))
    : null;

  const metadataName = METADATA_NAMES.find(isFile) ?? null;
  const metadata_path = metadataName ? join(dir, metadataName) : null;
  const configName = CONFIG_NAMES.find(isFile) ?? null;
  const config_path = configName ? join(dir, configName) : null;
  const metadata = await loadConfiguration(
    metadata_path ? [metadata_path] : [],
    config_path ? [config_path] : [],
  );

  const settings = isFile("settings.json")
    ? parseSettings(await readJsonObject(join(dir, "settings.json")), join(dir, "settings.json"))
    : {};

  return {
    config_dir: dir,
    files: inspect_data ? [] : databases,
    immutables: inspect_data ? databases : [],
    metadata,
    metadata_path,
    config_path,
    settings,
    template_dir: isDir("templates") ? join(dir, "templates") : null,
    plugins_dir: isDir("plugins") ? join(dir, "plugins") : null,
    static_mounts: isDir("static") ? [{ mount: "static", dir: join(dir, "static") }] : [],
    inspect_data,
  };
}

async function readJsonObject(path: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    throw new Error(`Cannot read "${path}": ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`Cannot read "${path}": expected a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
