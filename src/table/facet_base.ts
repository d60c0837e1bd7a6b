/**
 * The `Facet` base class (SPEC `register_facet_classes`) and what every facet kind shares:
 * configs from metadata and `_facet*` arguments, the facet size, toggle URLs and time-outs.
 *
 * @module
 */

import { escapeSqlIdentifier } from "../util/sql.ts";
import { argList, argPairs, type ArgsLike, readSetting, type SettingsLike } from "./args.ts";
import { type ArgPair, pathWithAddedArgs, pathWithRemovedArgs } from "./url_args.ts";

/** The structural part of `Database` that facets use. */
export interface FacetDatabase {
  execute(
    sql: string,
    params?: Record<string, unknown>,
    options?: { custom_time_limit?: number; truncate?: boolean; log_sql_errors?: boolean },
  ): Promise<{ rows: ArrayLike<unknown>[]; columns: string[] }>;
}

/** Labels for foreign-key values of `column`, keyed by the raw value. */
export type LabelLookup = (column: string, values: unknown[]) => Promise<Map<unknown, unknown>>;

/** Table config keys facets read. */
export interface FacetConfig {
  facets?: (string | Record<string, unknown>)[];
  facet_size?: number | "max";
}

/** Constructor options shared by every facet class. */
export interface FacetOptions {
  database: FacetDatabase;
  /** Table name; null for facets over a custom query. */
  table: string | null;
  /** The table query without order or limit. */
  sql: string;
  params?: Record<string, unknown>;
  args: ArgsLike;
  config?: FacetConfig;
  settings?: SettingsLike;
  /** Makes an absolute URL (scheme, host, https setting) from a path with query. */
  absoluteUrl: (pathWithQuery: string) => string;
  /** The page path as the client sees it (base_url included), without query. */
  path: string;
  /** FK label lookup, used by column facets. */
  expandLabels?: LabelLookup;
  /** Rows of the filtered table, when already counted. */
  row_count?: number | null;
}

/** One value of a facet. */
export interface FacetValue {
  value: unknown;
  label: unknown;
  count: number;
  toggle_url: string;
  selected: boolean;
}

/** One computed facet. */
export interface FacetResult {
  name: string;
  type: string;
  hideable: boolean;
  toggle_url: string;
  results: FacetValue[];
  truncated: boolean;
}

/** One suggested facet. */
export interface FacetSuggestion {
  name: string;
  type?: string;
  toggle_url: string;
}

/** A facet requested by metadata or by a `_facet*` argument. */
export interface FacetSource {
  source: "metadata" | "request";
  config: { simple?: string; column?: string; [key: string]: unknown };
}

/** Rows considered when suggesting facets. */
export const SUGGEST_CONSIDER = 1000;

/**
 * Facet configs by type (`column`, `array`, `date`, plugin types): configured (metadata) facets
 * first, in their order, then the request's. A facet given twice with the same type and column —
 * typically `_facet=x` for a configured `x` — is kept once, as its first (configured) source.
 */
export function loadFacetConfigs(
  args: ArgsLike,
  config: FacetConfig = {},
): Map<string, FacetSource[]> {
  const byType = new Map<string, FacetSource[]>();
  const seen = new Set<string>();
  const add = (type: string, source: FacetSource) => {
    const column = facetColumn(source);
    const key = JSON.stringify([type, column || source.config]);
    if (seen.has(key)) return;
    seen.add(key);
    byType.set(type, [...(byType.get(type) ?? []), source]);
  };
  for (const entry of config.facets ?? []) {
    if (typeof entry === "string") {
      add("column", { source: "metadata", config: { simple: entry } });
    } else {
      const [type, value] = Object.entries(entry)[0] ?? [];
      if (!type) continue;
      const facetConfig = typeof value === "string"
        ? { simple: value }
        : value as FacetSource["config"];
      add(type, { source: "metadata", config: facetConfig });
    }
  }
  for (const [key, value] of argPairs(args)) {
    if (key !== "_facet" && !key.startsWith("_facet_")) continue;
    const type = key === "_facet" ? "column" : key.slice("_facet_".length);
    let facetConfig: FacetSource["config"] = { simple: value };
    if (value.startsWith("{")) {
      try {
        facetConfig = JSON.parse(value);
      } catch {
        // Not JSON: treat it as a column name like any other value.
      }
    }
    add(type, { source: "request", config: facetConfig });
  }
  return byType;
}

/** True when `error` is a time-limit overrun (`QueryInterrupted` from `src/db/errors.ts`). */
export function isQueryInterrupted(error: unknown): boolean {
  return error instanceof Error && error.name === "QueryInterrupted";
}

/** Base class for facet kinds; subclasses set `type` and implement the two methods. */
export abstract class Facet {
  /** Unique facet kind, e.g. `column`. */
  static type = "";
  /** The facet kind of this instance. */
  abstract readonly type: string;
  /** The `_facet_<type>` argument (or `_facet` for columns) that enables this kind. */
  protected get argName(): string {
    return this.type === "column" ? "_facet" : `_facet_${this.type}`;
  }

  readonly database: FacetDatabase;
  readonly table: string | null;
  readonly sql: string;
  readonly params: Record<string, unknown>;
  readonly args: ArgsLike;
  readonly config: FacetConfig;
  readonly settings: SettingsLike | undefined;
  protected readonly options: FacetOptions;
  protected rowCount: number | null;

  /** Stores the shared options. */
  constructor(options: FacetOptions) {
    this.options = options;
    this.database = options.database;
    this.table = options.table;
    this.sql = options.sql;
    this.params = options.params ?? {};
    this.args = options.args;
    this.config = options.config ?? {};
    this.settings = options.settings;
    this.rowCount = options.row_count ?? null;
  }

  /** Suggested facets of this kind (best effort: failing probes are skipped). */
  abstract suggest(): Promise<FacetSuggestion[]>;

  /** Computed facets and the names of the ones that timed out. */
  abstract facet_results(): Promise<[FacetResult[], string[]]>;

  /** Configs of this facet kind, from metadata then the request. */
  get_configs(): FacetSource[] {
    return loadFacetConfigs(this.args, this.config).get(this.type) ?? [];
  }

  /** Column names of the configs, for skipping already-enabled suggestions. */
  protected enabledColumns(): string[] {
    return this.get_configs().map((c) => facetColumn(c));
  }

  /** `_facet_size` (int or `max`) > config `facet_size` > `default_facet_size`, capped. */
  get_facet_size(): number {
    const max = readSetting(this.settings, "max_returned_rows");
    let size = readSetting(this.settings, "default_facet_size");
    const custom = this.args.get("_facet_size");
    const customValid = custom === "max" || /^[0-9]+$/.test(custom ?? "");
    if (customValid) size = custom === "max" ? max : Number(custom);
    else if (this.table && this.config.facet_size) {
      size = this.config.facet_size === "max" ? max : Number(this.config.facet_size);
    }
    return Math.min(size, max);
  }

  /** Query-string pairs of the request, blanks kept. */
  protected pairs(): ArgPair[] {
    return argPairs(this.args);
  }

  /** Column names of the facet's base query. */
  protected async columns(): Promise<string[]> {
    const result = await this.database.execute(
      `select * from (${this.sql}) limit 0`,
      this.params,
    );
    return result.columns;
  }

  /** Filtered row count (among the first {@link SUGGEST_CONSIDER}). */
  protected async row_count(): Promise<number> {
    if (this.rowCount === null) {
      const result = await this.database.execute(
        `select count(*) from (select * from (${this.sql}) limit ${SUGGEST_CONSIDER})`,
        this.params,
      );
      this.rowCount = Number(result.rows[0][0]);
    }
    return this.rowCount;
  }

  /** Runs a facet query with `facet_time_limit_ms`. */
  protected runFacetSql(sql: string): ReturnType<FacetDatabase["execute"]> {
    return this.database.execute(sql, this.params, {
      truncate: false,
      custom_time_limit: readSetting(this.settings, "facet_time_limit_ms"),
    });
  }

  /** Runs a suggestion probe with `facet_suggest_time_limit_ms`. */
  protected runSuggestSql(sql: string): ReturnType<FacetDatabase["execute"]> {
    return this.database.execute(sql, this.params, {
      truncate: false,
      custom_time_limit: readSetting(this.settings, "facet_suggest_time_limit_ms"),
      log_sql_errors: false,
    });
  }

  /** Relative URL of this page without the `_facet…=column` argument. */
  protected facetToggleUrl(column: string): string {
    return pathWithRemovedArgs(this.options.path, this.pairs(), {
      pairs: [[this.argName, column]],
    });
  }

  /** Absolute URL adding `key=value`, or removing it when already selected. */
  protected valueToggleUrl(key: string, value: string, selected: boolean): string {
    const path = selected
      ? pathWithRemovedArgs(this.options.path, this.pairs(), { pairs: [[key, value]] })
      : pathWithAddedArgs(this.options.path, this.pairs(), [[key, value]]);
    return this.options.absoluteUrl(path);
  }

  /** Absolute URL enabling a facet of this kind on `column`. */
  protected suggestionUrl(column: string): string {
    return this.options.absoluteUrl(
      pathWithAddedArgs(this.options.path, this.pairs(), [[this.argName, column]]),
    );
  }

  /** True when `key=value` is among the request arguments. */
  protected isSelected(key: string, value: string): boolean {
    return argList(this.args, key).includes(value);
  }

  /** Escaped column for SQL. */
  protected col(column: string): string {
    return escapeSqlIdentifier(column);
  }
}

/** The column a facet config names (`{"simple": c}` or `{"column": c}`). */
export function facetColumn(source: FacetSource): string {
  return String(source.config.column ?? source.config.simple ?? "");
}

/** Python's `str()` of a facet value, used for URLs and the `selected` test. */
export function facetValueText(value: unknown): string {
  return value === null ? "None" : String(value);
}
