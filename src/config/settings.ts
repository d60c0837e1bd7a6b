/**
 * The configuration settings of API-DETAILS §8 (`--setting name value`, `/-/settings.json`):
 * one table of `{name, default, type, help}` and a typed `Settings` holder.
 */

/** The value kinds a setting can hold; raw CLI strings are parsed per kind. */
export type SettingType = "int" | "bool" | "string";

/** A setting value once parsed. */
export type SettingValue = number | boolean | string;

/** One row of the settings table. */
export interface SettingDefinition {
  name: string;
  default: SettingValue;
  type: SettingType;
  help: string;
}

function def(name: string, value: SettingValue, help: string): SettingDefinition {
  const type: SettingType = typeof value === "number"
    ? "int"
    : typeof value === "boolean"
    ? "bool"
    : "string";
  return { name, default: value, type, help };
}

/**
 * Every setting, in the order `/-/settings.json` lists them (the reference order of
 * examples/45-settings.json, then the settings that response does not have).
 */
export const DEFAULT_SETTINGS: readonly SettingDefinition[] = [
  def("default_page_size", 100, "Default page size for the table view"),
  def("max_returned_rows", 1000, "Maximum rows that can be returned from a table or custom query"),
  def(
    "max_insert_rows",
    100,
    "Maximum rows that can be inserted at a time using the bulk insert API",
  ),
  def(
    "num_sql_threads",
    3,
    "Number of read workers for SQL queries (0 runs them on the main thread)",
  ),
  def(
    "sql_time_limit_ms",
    1000,
    "Time limit for a SQL query in milliseconds, counted from the request's arrival",
  ),
  def("default_facet_size", 30, "Number of values to return for requested facets"),
  def("facet_time_limit_ms", 200, "Time limit for calculating a requested facet"),
  def("facet_suggest_time_limit_ms", 50, "Time limit for calculating a suggested facet"),
  def("allow_facet", true, "Allow users to specify columns to facet using ?_facet= parameter"),
  def("allow_download", true, "Allow users to download the original SQLite database files"),
  def("allow_signed_tokens", true, "Allow users to create and use signed API tokens"),
  def("default_allow_sql", true, "Allow anyone to run arbitrary SQL queries"),
  def(
    "max_signed_tokens_ttl",
    0,
    "Maximum allowed expiry time for signed API tokens in seconds (0 means no limit)",
  ),
  def("suggest_facets", true, "Calculate and display suggested facets"),
  def("default_cache_ttl", 5, "Default HTTP cache TTL (used in Cache-Control: max-age= header)"),
  def("cache_size_kb", 0, "SQLite cache size in KB (0 == use SQLite default)"),
  def("allow_csv_stream", true, "Allow .csv?_stream=1 to download all rows (ignoring pagination)"),
  def("max_csv_mb", 100, "Maximum size allowed for CSV export in MB - set 0 to disable this limit"),
  def(
    "truncate_cells_html",
    2048,
    "Truncate cells longer than this in HTML table view - set 0 to disable",
  ),
  def("force_https_urls", false, "Force URLs in API output to always use https:// protocol"),
  def("template_debug", false, "Allow display of template debug information with ?_context=1"),
  def("trace_debug", false, "Allow display of SQL trace debug information with ?_trace=1"),
  def("base_url", "/", "Path prefix for all generated URLs, for example /vitrine/"),
  def(
    "max_post_body_bytes",
    2097152,
    "Maximum size of a POST body held in memory, in bytes (0 means no limit)",
  ),
  // Vitrine's own: the read pool and the query cache (docs/internals.md "Speed").
  def(
    "spare_sql_threads",
    2,
    "Extra read workers for short queries while the others are busy with long ones",
  ),
  def(
    "query_cache_mb",
    32,
    "Memory for remembered table pages, counts, facets and suggestions, in MB (0 = off)",
  ),
  def(
    "page_cache_mb",
    16,
    "Memory for finished JSON pages of database files, kept by ETag, in MB (0 = off)",
  ),
  // The built-in visualisations (default plugins in src/plugins/defaults/), each switchable off.
  def("column_menus", true, "Show a menu on each column heading of table pages"),
  def("sql_editor", true, "Edit SQL with highlighting, autocomplete and formatting"),
  def("charts", true, "Offer a chart of the rows on table, view and query pages"),
  def("maps", true, "Show a map of rows that have latitude and longitude columns"),
  def(
    "map_tile_url",
    "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
    "Map tile URL template with {z}, {x}, {y} (and {s}); empty for maps without tiles",
  ),
  def(
    "map_tile_attribution",
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    "Attribution shown on maps for the tiles (HTML)",
  ),
  def("map_max_points", 10000, "Most rows a map loads and plots"),
  def(
    "max_returned_bytes",
    10485760,
    "Maximum bytes of text and BLOB values one query may return; larger results are refused " +
      "with a 400 (0 means no limit)",
  ),
  def(
    "sqlite_heap_limit_mb",
    200,
    "Hard limit on the memory SQLite may allocate in the whole process, in MB (0 means no limit)",
  ),
  def(
    "startup_check_max_mb",
    100,
    "Database files up to this size get a full PRAGMA quick_check at start-up; larger ones a " +
      "header and schema check only (0 means header and schema check only)",
  ),
  def(
    "public_url",
    "",
    "The site's public address, e.g. https://data.example.org, used for every absolute URL " +
      "instead of the request's Host header",
  ),
  def(
    "frame_ancestors",
    "'self'",
    "Who may show pages in a frame (the CSP frame-ancestors directive), e.g. 'none' or " +
      "'self' https://example.org",
  ),
  def(
    "max_url_bytes",
    32768,
    "Longest request URL (path and query string) accepted; longer is a 414",
  ),
  def("max_header_bytes", 16384, "Most bytes of request headers accepted; more is a 431"),
  def("max_json_depth", 64, "Deepest nesting of arrays and objects accepted in a JSON body"),
  def(
    "body_time_limit_ms",
    30000,
    "Time a request body may take to arrive once its headers have; slower is a 408 " +
      "(0 means no limit)",
  ),
  def(
    "hook_time_limit_ms",
    10000,
    "Time a plugin hook may take to answer during a request before the page fails with a 500 " +
      "(0 means no limit)",
  ),
  // Scaling out (docs/scaling.md): several processes, LiteFS, graceful restarts.
  def(
    "wal_mode",
    true,
    "Switch a mutable database file to WAL journal mode on its first write, so readers and " +
      "writers, also in other processes, do not block each other",
  ),
  def(
    "write_lock_timeout_ms",
    5000,
    "How long a write waits for another process writing the same file before failing with a 503",
  ),
  def(
    "shutdown_timeout_ms",
    30000,
    "On SIGTERM or SIGINT, how long running requests and queued writes may take to finish " +
      "before the process exits anyway",
  ),
  def(
    "shutdown_delay_ms",
    0,
    "On SIGTERM, how long to keep serving while /-/health answers 503, so a load balancer " +
      "stops sending requests before the server stops accepting them",
  ),
  def(
    "litefs_primary_url",
    "",
    "On a LiteFS replica, where to send writes: a URL with {primary} standing for the host " +
      "named in LiteFS's .primary file, e.g. http://{primary}:8081 (empty: answer 503)",
  ),
  def(
    "litefs_read_primary_s",
    5,
    "On a LiteFS replica, for how many seconds after a client's write its reads go to the " +
      "primary too, so that it sees its own write (0: reads always stay local)",
  ),
];

const DEFINITIONS = new Map(DEFAULT_SETTINGS.map((d) => [d.name, d]));

/** An unknown setting name or a value of the wrong type. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

const TRUE_WORDS = new Set(["on", "true", "1"]);
const FALSE_WORDS = new Set(["off", "false", "0"]);

/** Parse one raw value (a CLI string or an already-typed value) for the named setting. */
export function parseSettingValue(name: string, raw: unknown): SettingValue {
  const definition = DEFINITIONS.get(name);
  if (!definition) {
    throw new SettingsError(
      `Unknown setting "${name}"; known settings: ${[...DEFINITIONS.keys()].join(", ")}`,
    );
  }
  switch (definition.type) {
    case "bool":
      return parseBool(name, raw);
    case "int":
      return parseInt(name, raw);
    default:
      if (typeof raw !== "string") {
        throw new SettingsError(`Setting "${name}" must be a string, got ${JSON.stringify(raw)}`);
      }
      if (name === "base_url") return normaliseBaseUrl(raw);
      if (name === "public_url") return normalisePublicUrl(raw);
      if (name === "frame_ancestors") return checkFrameAncestors(raw);
      return raw;
  }
}

/** `prefix`, `/prefix` and `/prefix/` all mean the path prefix `/prefix/`. */
function normaliseBaseUrl(raw: string): string {
  const trimmed = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith("//")) {
    throw new SettingsError(
      `Setting "base_url" must be a path such as /prefix/, not a full URL: ${JSON.stringify(raw)}`,
    );
  }
  let path = trimmed || "/";
  if (!path.startsWith("/")) path = "/" + path;
  if (!path.endsWith("/")) path += "/";
  return path;
}

/** `https://host[:port]` with nothing after it; empty means "use the request's Host". */
function normalisePublicUrl(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === "") return "";
  let url: URL | null = null;
  try {
    url = new URL(trimmed);
  } catch { /* reported below */ }
  const bare = url !== null && (url.pathname === "/" || url.pathname === "") && !url.search &&
    !url.hash && !url.username && !url.password;
  if (!url || !/^https?:$/.test(url.protocol) || !bare) {
    throw new SettingsError(
      `Setting "public_url" must be a scheme and host such as https://data.example.org ` +
        `(set a path prefix with base_url), got ${JSON.stringify(raw)}`,
    );
  }
  return url.origin;
}

/** One or more CSP sources; a `;` or `,` would start another directive or policy. */
function checkFrameAncestors(raw: string): string {
  const value = raw.trim();
  if (!/^[^;,\r\n]+$/.test(value)) {
    throw new SettingsError(
      `Setting "frame_ancestors" must be CSP sources such as 'self', 'none' or ` +
        `https://example.org, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

function parseBool(name: string, raw: unknown): boolean {
  if (typeof raw === "boolean") return raw;
  if (raw === 0 || raw === 1) return raw === 1;
  const word = typeof raw === "string" ? raw.trim().toLowerCase() : null;
  if (word !== null && TRUE_WORDS.has(word)) return true;
  if (word !== null && FALSE_WORDS.has(word)) return false;
  throw new SettingsError(
    `Setting "${name}" must be on/off, true/false or 1/0, got ${JSON.stringify(raw)}`,
  );
}

function parseInt(name: string, raw: unknown): number {
  let value: number | null = null;
  if (typeof raw === "number" && Number.isSafeInteger(raw)) value = raw;
  if (typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw)) {
    const parsed = Number(raw.trim());
    if (Number.isSafeInteger(parsed)) value = parsed;
  }
  if (value === null) {
    throw new SettingsError(`Setting "${name}" must be an integer, got ${JSON.stringify(raw)}`);
  }
  // Every integer setting is a size, a count or a time: a negative one has no meaning.
  if (value < 0) {
    throw new SettingsError(`Setting "${name}" must be 0 or more, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** The configured settings: defaults overridden by `--setting`, `settings.json` or code. */
export class Settings {
  #values = new Map<string, SettingValue>();
  #changes = 0;

  /** Start from the defaults, then apply `overrides` (raw strings or typed values). */
  constructor(overrides: Record<string, unknown> = {}) {
    for (const d of DEFAULT_SETTINGS) this.#values.set(d.name, d.default);
    for (const [name, value] of Object.entries(overrides)) this.set(name, value);
  }

  /** The value of a setting; unknown names throw `SettingsError`. */
  get(name: string): SettingValue {
    const value = this.#values.get(name);
    if (value === undefined) throw new SettingsError(`Unknown setting "${name}"`);
    return value;
  }

  /** Set a setting from a raw string (as typed on the command line) or a typed value. */
  set(name: string, raw: unknown): void {
    this.#values.set(name, parseSettingValue(name, raw));
    this.#changes++;
  }

  /** How many times a setting was set: answers computed from the settings hold while it stays. */
  get generation(): number {
    return this.#changes;
  }

  /** True for a name in the settings table. */
  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** The flat `{setting: value}` object of `/-/settings.json`, in table order. */
  toJSON(): Record<string, SettingValue> {
    return Object.fromEntries(this.#values);
  }
}

/**
 * A block of settings (`settings.json`, a metadata `settings:` mapping) with every value parsed;
 * an unknown name or a bad value throws a SettingsError that starts with `where`.
 */
export function parseSettings(
  raw: Record<string, unknown>,
  where: string,
): Record<string, SettingValue> {
  const settings: Record<string, SettingValue> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      settings[name] = parseSettingValue(name, value);
    } catch (error) {
      throw new SettingsError(`${where}: ${(error as Error).message}`, { cause: error });
    }
  }
  return settings;
}
