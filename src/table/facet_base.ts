/**
 * The `Facet` base class (SPEC `register_facet_classes`) and what every facet kind shares: the
 * facet size, toggle URLs, time-outs, and the two loops the built-in kinds differ in only by SQL
 * ({@link Facet.countFacets} for results, {@link Facet.suggestColumns} for suggestions). Configs and
 * result shapes are in `facet_configs.ts`.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { TableArgsError } from "./errors.ts";
import { argList, argPairs, type ArgsLike, readSetting, type SettingsLike } from "./args.ts";
import { type ArgPair, pathWithAddedArgs, pathWithRemovedArgs } from "./url_args.ts";
import {
  facetColumn,
  type FacetConfig,
  type FacetResult,
  type FacetSource,
  type FacetSuggestion,
  loadFacetConfigs,
} from "./facet_configs.ts";

/** The structural part of `Database` that facets use. */
export interface FacetDatabase {
  /** The engine's SQL dialect (SQLite when absent). */
  readonly dialect?: SqlDialect;
  /** Runs a read query (see `Database.execute`). */
  execute(
    sql: string,
    params?: Record<string, unknown>,
    options?: { custom_time_limit?: number; truncate?: boolean; log_sql_errors?: boolean },
  ): Promise<FacetRows>;
}

/** A facet query's answer: `values` (plain arrays, Vitrine's `Results`) when there, else `rows`. */
export interface FacetRows {
  /** The rows (objects or arrays, by position in `columns`). */
  rows: ArrayLike<unknown>[];
  /** The same rows as plain arrays, when the database has them. */
  values?: ArrayLike<unknown>[];
  /** The column names, in order. */
  columns: string[];
}

/** The rows of an answer by position (plain arrays when the database gives them). */
export function positional(result: FacetRows): ArrayLike<unknown>[] {
  return result.values ?? result.rows;
}

/** Labels for foreign-key values of `column`, keyed by the raw value. */
export type LabelLookup = (column: string, values: unknown[]) => Promise<Map<unknown, unknown>>;

/** Constructor options shared by every facet class. */
export interface FacetOptions {
  /** The database the facet queries. */
  database: FacetDatabase;
  /** Table name; null for facets over a custom query. */
  table: string | null;
  /** The table query without order or limit. */
  sql: string;
  /** Parameters of `sql`. */
  params?: Record<string, unknown>;
  /** The request's query-string arguments. */
  args: ArgsLike;
  /** The table's facet configuration from metadata. */
  config?: FacetConfig;
  /** Settings (`default_facet_size`, time limits...). */
  settings?: SettingsLike;
  /** Makes an absolute URL (scheme, host, https setting) from a path with query. */
  absoluteUrl: (pathWithQuery: string) => string;
  /** The page path as the client sees it (base_url included), without query. */
  path: string;
  /** FK label lookup, used by column facets. */
  expandLabels?: LabelLookup;
  /** Rows of the filtered table among the first {@link SUGGEST_CONSIDER}, when already known. */
  row_count?: number | null;
  /** Column names of `sql`, when the caller knows them (saves a `limit 0` probe per kind). */
  columns?: string[];
}

/** What a counting facet kind supplies to {@link Facet.countFacets}. */
export interface FacetCounter {
  /** SQL of `(value, count)` rows for the escaped column `c`, best first, at most `limit`. */
  sql(c: string, limit: number): string;
  /** The filter argument a value toggles: `col`, `col__date`, `col__arraycontains`. */
  key(column: string): string;
  /** Labels of the shown raw values (foreign-key labels, for column facets). */
  labels?(column: string, values: unknown[]): Promise<Map<unknown, unknown>>;
  /** The reported `[value, label]` of a raw value; by default the raw value twice. */
  value?(raw: unknown, labels: Map<unknown, unknown>): [unknown, unknown];
}

/** Rows considered when suggesting facets. */
export const SUGGEST_CONSIDER = 1000;

/**
 * Columns one suggestion probe asks about at most ({@link Facet.suggestColumnsTogether}): each
 * takes a few result columns, and SQLite allows 2,000.
 */
const COLUMNS_PER_PROBE = 100;

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

  /** The database the facet queries. */
  readonly database: FacetDatabase;
  /** The table, or null for a query page. */
  readonly table: string | null;
  /** The SQL of the page's rows. */
  readonly sql: string;
  /** Its parameters. */
  readonly params: Record<string, unknown>;
  /** The request's query-string arguments. */
  readonly args: ArgsLike;
  /** The table's facet configuration. */
  readonly config: FacetConfig;
  /** Settings, when given. */
  readonly settings: SettingsLike | undefined;
  /** The options it was constructed with. */
  protected readonly options: FacetOptions;
  /** Rows in the page's query, once counted. */
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

  /** Column names of the facet's base query: as given, else from a `limit 0` probe. */
  protected async columns(): Promise<string[]> {
    if (this.options.columns) return this.options.columns;
    const result = await this.database.execute(
      `select * from ${this.dialect.subquery(this.sql)} limit 0`,
      this.params,
    );
    return result.columns;
  }

  /** Filtered row count (among the first {@link SUGGEST_CONSIDER}). */
  protected async row_count(): Promise<number> {
    if (this.rowCount === null) {
      const result = await this.database.execute(
        `select count(*) from ${
          this.dialect.subquery(
            `select * from ${this.dialect.subquery(this.sql)} limit ${SUGGEST_CONSIDER}`,
          )
        }`,
        this.params,
      );
      this.rowCount = Number(positional(result)[0][0]);
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

  /**
   * Template of the built-in kinds' `facet_results()`: runs `counter.sql` for every requested
   * column with the facet time limit, and builds the values and toggle URLs. A facet that runs
   * out of time is reported in the second list instead of failing the page.
   */
  protected async countFacets(counter: FacetCounter): Promise<[FacetResult[], string[]]> {
    const results: FacetResult[] = [];
    const timedOut: string[] = [];
    const size = this.get_facet_size();
    const fromMetadata = this.get_configs().some((source) => source.source === "metadata");
    const columns = fromMetadata ? await this.columns() : [];
    for (const source of this.get_configs()) {
      const column = facetColumn(source);
      // A metadata facet on a column the table lacks (a typo, or a column since dropped) is
      // the operator's mistake: left out, not a failed page for every visitor. (A request's
      // `_facet` naming no column was refused with a 400 before.)
      if (source.source === "metadata" && !columns.includes(column)) {
        const where = this.table === null ? "this table" : `table "${this.table}"`;
        warnOnce(`metadata facet "${column}" is not a column of ${where}; it is left out`);
        continue;
      }
      try {
        // One row past the size tells whether the list is truncated.
        const rows = positional(await this.runFacetSql(counter.sql(this.col(column), size + 1)));
        const shown = rows.slice(0, size);
        const labels = await counter.labels?.(column, shown.map((row) => row[0])) ??
          new Map<unknown, unknown>();
        const key = counter.key(column);
        const values = shown.map((row) => {
          const text = facetValueText(row[0]);
          const selected = this.isSelected(key, text);
          const [value, label] = counter.value?.(row[0], labels) ?? [row[0], row[0]];
          return {
            value,
            label,
            count: Number(row[1]),
            toggle_url: this.valueToggleUrl(key, text, selected),
            selected,
          };
        });
        const hideable = source.source !== "metadata";
        const toggle_url = this.facetToggleUrl(column);
        const truncated = rows.length > size;
        // The reference's key order: column facets list their values after the toggle URL,
        // array and date facets right after the type (examples 20–22).
        results.push(
          this.type === "column"
            ? { name: column, type: this.type, hideable, toggle_url, results: values, truncated }
            : { name: column, type: this.type, results: values, hideable, toggle_url, truncated },
        );
      } catch (error) {
        // A type another engine cannot group or sort (PostgreSQL's `json`): the visitor's
        // request, not a server failure. SQLite groups and sorts every value.
        if (this.dialect.name !== "sqlite" && (error as Error)?.name === "QueryError") {
          throw new TableArgsError(`Cannot facet by ${column}: ${(error as Error).message}`);
        }
        if (!isQueryInterrupted(error)) throw error;
        timedOut.push(column);
      }
    }
    return [results, timedOut];
  }

  /**
   * Template of the built-in kinds' `suggest()`: every column not already faceted for which
   * `probe(escapedColumn)` answers true. Errors `ignore` accepts skip the column (probes are
   * best effort); others propagate.
   */
  protected async suggestColumns(
    probe: (c: string) => Promise<boolean>,
    ignore: (error: unknown) => boolean = () => true,
  ): Promise<FacetSuggestion[]> {
    const enabled = this.enabledColumns();
    const suggestions: FacetSuggestion[] = [];
    for (const column of await this.columns()) {
      if (enabled.includes(column)) continue;
      try {
        if (await probe(this.col(column))) suggestions.push(this.suggestion(column));
      } catch (error) {
        if (!ignore(error)) throw error;
      }
    }
    return suggestions;
  }

  /**
   * As {@link suggestColumns}, but one probe answers for many columns at once: `probe(escaped)`
   * returns a verdict per column, from one query over the rows the kind considers. The built-in
   * kinds ask this way: a probe per column (and kind) cost a page of a 20,000,000-row table 25
   * small queries in a row, each waiting for a worker (856 ms on a loaded machine;
   * bench/big_files.ts), and each reading the same first rows again. A probe that fails in a way
   * `ignore` accepts leaves its columns unsuggested.
   */
  protected async suggestColumnsTogether(
    probe: (escaped: string[]) => Promise<boolean[]>,
    ignore: (error: unknown) => boolean = () => true,
  ): Promise<FacetSuggestion[]> {
    const enabled = this.enabledColumns();
    const candidates = (await this.columns()).filter((column) => !enabled.includes(column));
    const suggestions: FacetSuggestion[] = [];
    for (let start = 0; start < candidates.length; start += COLUMNS_PER_PROBE) {
      const chunk = candidates.slice(start, start + COLUMNS_PER_PROBE);
      try {
        const verdicts = await probe(chunk.map((column) => this.col(column)));
        chunk.forEach((column, i) => {
          if (verdicts[i]) suggestions.push(this.suggestion(column));
        });
      } catch (error) {
        if (!ignore(error)) throw error;
      }
    }
    return suggestions;
  }

  /** One suggestion of this kind for `column`. */
  protected suggestion(column: string): FacetSuggestion {
    return { name: column, type: this.type, toggle_url: this.suggestionUrl(column) };
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

  /** The SQL dialect of the facet's database. */
  protected get dialect(): SqlDialect {
    return this.database.dialect ?? sqliteDialect;
  }

  /** Escaped column for SQL. */
  protected col(column: string): string {
    return this.dialect.escapeIdentifier(column);
  }
}

/** Python's `str()` of a facet value, used for URLs and the `selected` test. */
export function facetValueText(value: unknown): string {
  return value === null ? "None" : String(value);
}

const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(`Vitrine: ${message}`);
}
