/**
 * Metadata: the instance/database/table/canned-query configuration read from a JSON or YAML
 * file (`-m metadata.yml`), merged with `get_metadata` hook results.
 */
import YAML from "yaml";
import { resolvePluginConfig } from "./plugin_config.ts";
import { jsonErrorOffset, positionAt } from "./json_position.ts";
import { HISTORY_MODES } from "../db/history/store.ts";

/** A parsed metadata document (nested plain objects). */
export type MetadataDict = Record<string, unknown>;

/** A canned query definition, normalised: always has `name` and `sql`. */
export interface CannedQuery {
  /** The query's name (its key in `queries`). */
  name: string;
  /** The SQL, with `:named` parameters. */
  sql: string;
  /** Shown as the page heading. */
  title?: string;
  /** Plain-text description. */
  description?: string;
  /** HTML description (trusted). */
  description_html?: string;
  /** Parameter names, when they cannot be read from the SQL. */
  params?: string[];
  /** Hide the SQL on the query page. */
  hide_sql?: boolean;
  /** URL fragment added to links to the query. */
  fragment?: string;
  /** A writable query: runs with `execute_write` on POST. */
  write?: boolean;
  /** Who may run it (an `allow` block). */
  allow?: unknown;
  /** Message shown after a successful write. */
  on_success_message?: string;
  /** SQL whose single value is the success message. */
  on_success_message_sql?: string;
  /** Where to go after a successful write. */
  on_success_redirect?: string;
  /** Message shown after a failed write. */
  on_error_message?: string;
  /** Where to go after a failed write. */
  on_error_redirect?: string;
  /** Any other key, kept as given. */
  [key: string]: unknown;
}

/** Footer and header fields a page shows, resolved from the most specific level. */
export interface DisplayMetadata {
  /** Page title. */
  title?: string;
  /** Plain-text description. */
  description?: string;
  /** HTML description (trusted). */
  description_html?: string;
  /** Licence name. */
  license?: string;
  /** Licence link. */
  license_url?: string;
  /** Source name. */
  source?: string;
  /** Source link. */
  source_url?: string;
  /** About name. */
  about?: string;
  /** About link. */
  about_url?: string;
}

/** Options of the error raised for unparseable metadata. */
export interface BadMetadataErrorOptions extends ErrorOptions {
  /** 1-based line of the syntax error, when the parser located it. */
  line?: number | null;
  /** 1-based column of the syntax error, when the parser located it. */
  column?: number | null;
}

/** The metadata text is neither valid JSON nor valid YAML (or not a mapping). */
export class BadMetadataError extends Error {
  /** Always `BadMetadataError`. */
  override name = "BadMetadataError";
  /** 1-based line of the syntax error, or null. */
  readonly line: number | null;
  /** 1-based column of the syntax error, or null. */
  readonly column: number | null;

  /** An error for `message`, with the position of the syntax error when known. */
  constructor(message: string, options: BadMetadataErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.line = options.line ?? null;
    this.column = options.column ?? null;
  }
}

/** Which parser `parse_metadata` uses: `auto` tries JSON, then YAML. */
export type MetadataFormat = "auto" | "json" | "yaml";

/**
 * Parse metadata text that may be JSON or YAML; returns a nested object. A syntax error is a
 * `BadMetadataError` whose message (and `line`/`column`) says where the parser stopped: the
 * JSON parser's position for text that starts with `{` or `[`, the YAML parser's otherwise.
 * `format: "json"` (a `.json` file) accepts JSON only, so a typo is not read as YAML.
 */
export function parse_metadata(
  text: string,
  { format = "auto" }: { format?: MetadataFormat } = {},
): MetadataDict {
  if (text.trim() === "") return {};
  let parsed: unknown;
  if (format === "yaml") {
    parsed = parseYaml(text);
  } else {
    try {
      parsed = JSON.parse(text);
    } catch (jsonError) {
      if (format === "json") throw jsonSyntaxError(text, jsonError);
      try {
        parsed = YAML.parse(text);
      } catch (yamlError) {
        throw /^\s*[{[]/.test(text) ? jsonSyntaxError(text, jsonError) : yamlSyntaxError(yamlError);
      }
    }
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) {
    throw new BadMetadataError("Metadata must be a JSON or YAML object (a mapping of keys)");
  }
  checkShape(parsed);
  return parsed;
}

/**
 * The structure every page relies on: found at start-up, where a mistake is one clear error,
 * instead of a 500 on the pages that read it.
 */
function checkShape(metadata: MetadataDict): void {
  const databases = metadata.databases;
  if (databases === undefined || databases === null) return;
  if (!isPlainObject(databases)) {
    throw new BadMetadataError('"databases" must be a mapping of database names to settings');
  }
  for (const [name, database] of Object.entries(databases)) {
    if (database === null) continue;
    if (!isPlainObject(database)) {
      throw new BadMetadataError(`Database "${name}" must be a mapping of keys`);
    }
    for (const key of ["tables", "queries"]) {
      const value = database[key];
      if (value !== undefined && value !== null && !isPlainObject(value)) {
        throw new BadMetadataError(`"${key}" of database "${name}" must be a mapping by name`);
      }
    }
    const history = database.history;
    if (history !== undefined && history !== null && !HISTORY_MODES.includes(history as never)) {
      throw new BadMetadataError(
        `"history" of database "${name}" must be one of ${HISTORY_MODES.join(", ")}`,
      );
    }
    for (const [query, definition] of Object.entries(database.queries ?? {})) {
      const sql = isPlainObject(definition) ? definition.sql : definition;
      if (typeof sql !== "string") {
        throw new BadMetadataError(
          `Canned query "${query}" of database "${name}" must be SQL text, or a mapping with ` +
            `its SQL under "sql"`,
        );
      }
      checkParams(name, query, isPlainObject(definition) ? definition.params : undefined);
    }
  }
}

/**
 * A canned query's `params`: a list of names, or of `{name, label, default, options…}` objects
 * (the query page reads the rest); an entry that is neither would be a form field named
 * `[object Object]`.
 */
function checkParams(database: string, query: string, params: unknown): void {
  if (params === undefined || params === null) return;
  const where = `"params" of canned query "${query}" of database "${database}"`;
  if (!Array.isArray(params)) throw new BadMetadataError(`${where} must be a list`);
  params.forEach((entry, i) => {
    if (typeof entry === "string") return;
    if (isPlainObject(entry) && typeof entry.name === "string" && entry.name) return;
    throw new BadMetadataError(
      `${where}: entry ${i + 1} must be a parameter name, or a mapping with its "name"`,
    );
  });
}

function parseYaml(text: string): unknown {
  try {
    return YAML.parse(text);
  } catch (error) {
    throw yamlSyntaxError(error);
  }
}

function jsonSyntaxError(text: string, error: unknown): BadMetadataError {
  const message = error instanceof Error ? error.message : String(error);
  // V8 names a position for most mistakes ("... in JSON at position 18 (line 3 column 2)"),
  // but not for an unexpected token; the scanner finds that one.
  const reported = /\bat position (\d+)/.exec(message);
  let offset: number;
  let reason: string;
  if (reported) {
    offset = Number(reported[1]);
    reason = message.replace(/ (?:in JSON )?at position \d+.*$/s, "");
  } else {
    offset = jsonErrorOffset(text) ?? text.length;
    reason = offset < text.length
      ? `Unexpected character ${JSON.stringify(text[offset])}`
      : "Unexpected end of input";
  }
  const { line, column } = positionAt(text, offset);
  return new BadMetadataError(
    `Metadata is not valid JSON: ${reason} at line ${line}, column ${column}`,
    { cause: error, line, column },
  );
}

function yamlSyntaxError(error: unknown): BadMetadataError {
  const first = (error instanceof Error ? error.message : String(error)).split("\n")[0];
  const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
  const reason = first.replace(/ at line \d+, column \d+:?\s*$/, "");
  const suffix = where ? ` at line ${where.line}, column ${where.col}` : "";
  return new BadMetadataError(`Metadata is not valid YAML: ${reason}${suffix}`, {
    cause: error,
    line: where?.line ?? null,
    column: where?.col ?? null,
  });
}

/**
 * Read and parse a metadata file; errors name the file. `.json` files are parsed as JSON only,
 * `.yaml`/`.yml` as YAML, anything else as either.
 */
export async function loadMetadataFile(path: string): Promise<MetadataDict> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new BadMetadataError(`Cannot read metadata file "${path}"`, { cause: error });
  }
  const format: MetadataFormat = /\.json$/i.test(path)
    ? "json"
    : /\.ya?ml$/i.test(path)
    ? "yaml"
    : "auto";
  try {
    return parse_metadata(text, { format });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const located = error instanceof BadMetadataError ? error : null;
    throw new BadMetadataError(`Cannot load metadata file "${path}": ${message}`, {
      cause: error,
      line: located?.line,
      column: located?.column,
    });
  }
}

/**
 * Several metadata files (`-m a.yaml -m b.json`), merged in order with {@link merge}: a later
 * file's value wins, objects merge key by key. Null when `paths` is empty.
 */
export async function loadMetadataFiles(paths: readonly string[]): Promise<MetadataDict | null> {
  let merged: MetadataDict | null = null;
  for (const path of paths) {
    const loaded = await loadMetadataFile(path);
    merged = merged ? merge(merged, loaded) : loaded;
  }
  return merged;
}

/** True for `{...}` objects (not arrays, null, class instances like Date). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep-merge two metadata objects; `override` wins on conflicts. Objects merge key by key,
 * anything else (lists included) is replaced. Used so local metadata beats `get_metadata` hooks.
 */
export function merge(base: MetadataDict, override: MetadataDict): MetadataDict {
  const result: MetadataDict = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const existing = result[key];
    result[key] = isPlainObject(existing) && isPlainObject(value) ? merge(existing, value) : value;
  }
  return result;
}

const DISPLAY_PAIRS = [
  ["title"],
  ["description", "description_html"],
  ["license", "license_url"],
  ["source", "source_url"],
  ["about", "about_url"],
] as const;

/** Read access to merged metadata. All lookups return `{}` rather than undefined. */
export class Metadata {
  /** The metadata document as given. */
  readonly data: MetadataDict;

  /** Metadata over a parsed document. */
  constructor(data: MetadataDict = {}) {
    this.data = data;
  }

  /** Top-level keys (title, license, plugins, extra_css_urls, ...). */
  instance(): MetadataDict {
    return this.data;
  }

  /** `databases.<name>`, or `{}`. */
  database(name: string): MetadataDict {
    return objectAt(objectAt(this.data, "databases"), name);
  }

  /** `databases.<db>.tables.<table>` (hidden, label_column, sort, facets, fts_table, ...). */
  table(database: string, table: string): MetadataDict {
    return objectAt(objectAt(this.database(database), "tables"), table);
  }

  /** All canned queries of a database, in definition order. */
  queries(database: string): Record<string, CannedQuery> {
    const raw = objectAt(this.database(database), "queries");
    const result: Record<string, CannedQuery> = {};
    for (const [name, value] of Object.entries(raw)) {
      const query = normaliseQuery(name, value);
      if (query) result[name] = query;
    }
    return result;
  }

  /** One canned query (a string value means `{sql: value}`), or null. */
  query(database: string, name: string): CannedQuery | null {
    const raw = objectAt(this.database(database), "queries");
    return Object.hasOwn(raw, name) ? normaliseQuery(name, raw[name]) : null;
  }

  /**
   * Plugin configuration: table → database → instance `plugins.<name>`, the most specific
   * present level wins; `{"$env": "VAR"}` and `{"$file": "path"}` resolved. Null when absent.
   */
  plugin_config(
    name: string,
    { database, table }: { database?: string | null; table?: string | null } = {},
  ): unknown {
    const levels: MetadataDict[] = [];
    if (database && table) levels.push(this.table(database, table));
    if (database) levels.push(this.database(database));
    levels.push(this.data);
    for (const level of levels) {
      const plugins = objectAt(level, "plugins");
      if (Object.hasOwn(plugins, name)) return resolvePluginConfig(plugins[name]);
    }
    return null;
  }

  /**
   * Display fields for a page, each group (e.g. license + license_url) taken together from the
   * most specific level that sets any of it, so a table's licence never pairs with the
   * instance's licence URL.
   */
  display(database?: string | null, table?: string | null): DisplayMetadata {
    const levels: MetadataDict[] = [];
    if (database && table) levels.push(this.table(database, table));
    if (database) levels.push(this.database(database));
    levels.push(this.data);
    const result: Record<string, string> = {};
    for (const group of DISPLAY_PAIRS) {
      const level = levels.find((l) => group.some((key) => typeof l[key] === "string"));
      if (!level) continue;
      for (const key of group) {
        if (typeof level[key] === "string") result[key] = level[key] as string;
      }
    }
    return result;
  }
}

function objectAt(source: MetadataDict, key: string): MetadataDict {
  const value = source[key];
  return isPlainObject(value) ? value : {};
}

function normaliseQuery(name: string, value: unknown): CannedQuery | null {
  if (typeof value === "string") return { name, sql: value };
  if (isPlainObject(value) && typeof value.sql === "string") {
    return { ...value, name, sql: value.sql };
  }
  return null;
}
