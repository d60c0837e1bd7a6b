/**
 * The two files Datasette 1.0 splits its configuration into: `-m metadata.yaml` describes the
 * data (titles, descriptions, licences, sources, column descriptions, units) and
 * `-c config.yaml` says how the instance behaves (settings, permissions, canned queries, plugin
 * configuration, table options). Vitrine reads both into one document (metadata files first,
 * then configuration files, each merged in order, a later value winning), so a file holding
 * both kinds of key, as metadata files before 1.0 did, keeps working with either flag.
 *
 * A top-level key neither file knows is an error naming the file and line: a misspelt
 * `permisions:` would otherwise be ignored and leave the instance open.
 *
 * @module
 */
import YAML from "yaml";
import { positionAt } from "./json_position.ts";
import {
  BadMetadataError,
  isPlainObject,
  loadMetadataFile,
  merge,
  type MetadataDict,
} from "./metadata.ts";

/** Keys that describe the data, at the instance, database and table levels (`-m`). */
export const METADATA_KEYS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "description_html",
  "license",
  "license_url",
  "source",
  "source_url",
  "about",
  "about_url",
  "columns",
  "units",
]);

/** Top-level keys that configure the instance (`-c`); `databases` holds both kinds. */
export const CONFIGURATION_KEYS: ReadonlySet<string> = new Set([
  "databases",
  "plugins",
  "extra_css_urls",
  "extra_js_urls",
  "allow",
  "allow_sql",
  "permissions",
  "settings",
]);

/** Every top-level key either file may hold. */
const TOP_LEVEL_KEYS = [...METADATA_KEYS, ...CONFIGURATION_KEYS].filter((key) =>
  key !== "columns" && key !== "units"
);

/**
 * Loads the `-m` files, then the `-c` files, each checked for unknown top-level keys, merged in
 * that order (a later value wins; objects merge key by key). Null when there are none.
 */
export async function loadConfiguration(
  metadataPaths: readonly string[],
  configPaths: readonly string[],
): Promise<MetadataDict | null> {
  let merged: MetadataDict | null = null;
  for (const path of [...metadataPaths, ...configPaths]) {
    const loaded = await loadMetadataFile(path);
    await checkTopLevelKeys(path, loaded);
    merged = merged ? merge(merged, loaded) : loaded;
  }
  return merged;
}

/** Throws a BadMetadataError naming the file and line of the first unknown top-level key. */
async function checkTopLevelKeys(path: string, data: MetadataDict): Promise<void> {
  const unknown = Object.keys(data).find((key) => !TOP_LEVEL_KEYS.includes(key));
  if (unknown === undefined) return;
  const line = await keyLine(path, unknown);
  throw new BadMetadataError(
    `Unknown key "${unknown}" in "${path}"${line ? `, line ${line}` : ""}: the top level of ` +
      `a metadata or configuration file holds only ${TOP_LEVEL_KEYS.join(", ")}`,
    { line },
  );
}

/** The 1-based line of a top-level `key` (JSON is YAML too, so one parser finds it in both). */
async function keyLine(path: string, key: string): Promise<number | null> {
  try {
    const text = await Deno.readTextFile(path);
    const document = YAML.parseDocument(text);
    if (!YAML.isMap(document.contents)) return null;
    for (const item of document.contents.items) {
      if (YAML.isScalar(item.key) && item.key.value === key && item.key.range) {
        return positionAt(text, item.key.range[0]).line;
      }
    }
  } catch {
    // The file was read once already; without a position the message still names the key.
  }
  return null;
}

/**
 * The configuration part of a merged document, as `/-/config` shows it: the metadata keys
 * (titles, descriptions, licences, sources, column descriptions, units) left out at the
 * instance, database and table levels, and levels left empty dropped.
 */
export function configurationOf(data: MetadataDict): MetadataDict {
  const result = withoutMetadata(data);
  if (isPlainObject(data.databases)) {
    const databases: MetadataDict = {};
    for (const [name, database] of Object.entries(data.databases)) {
      if (!isPlainObject(database)) continue;
      const kept = withoutMetadata(database);
      if (isPlainObject(database.tables)) {
        const tables: MetadataDict = {};
        for (const [table, options] of Object.entries(database.tables)) {
          if (!isPlainObject(options)) continue;
          const tableKept = withoutMetadata(options);
          if (Object.keys(tableKept).length) tables[table] = tableKept;
        }
        if (Object.keys(tables).length) kept.tables = tables;
        else delete kept.tables;
      }
      if (Object.keys(kept).length) databases[name] = kept;
    }
    if (Object.keys(databases).length) result.databases = databases;
    else delete result.databases;
  }
  return result;
}

function withoutMetadata(level: MetadataDict): MetadataDict {
  return Object.fromEntries(Object.entries(level).filter(([key]) => !METADATA_KEYS.has(key)));
}

/** Key names whose values `/-/config` and `/-/metadata` never show (the reference's list). */
const SECRET_KEY = /secret|key|password|token|hash|dsn/i;

/**
 * A copy of `value` with the value of every key that looks secret replaced by `***`, whatever it
 * holds (an object under `api_keys` is hidden whole, not searched for a secret-looking key);
 * true/false and null are no secret and stay (`hash_urls: false`).
 */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map((
        [key, inner],
      ) => [
        key,
        SECRET_KEY.test(key) && inner !== null && typeof inner !== "boolean"
          ? "***"
          : redactSecrets(inner),
      ]),
    );
  }
  return value;
}
