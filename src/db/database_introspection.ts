/**
 * The spec's introspection members of `Database` (SPEC "Introspection"), answered through
 * queries so they work for every kind of database, and memoised by {@link SchemaCache}.
 *
 * @module
 */

import * as introspect from "./introspect.ts";
import { allOutgoingForeignKeys, allTableShapes, type TableShape } from "./introspect_bulk.ts";
import { detectFtsTable, detectHiddenTables, detectLabelColumn } from "./introspect_detect.ts";
import type { Row } from "./results.ts";
import { QueryInterrupted } from "./errors.ts";
import { SchemaCache } from "./schema_cache.ts";
import { selectIsRepeatable, viewIsRepeatable } from "./repeatable.ts";

/** Introspection for a database; `Database` supplies the query runner and table config. */
export abstract class DatabaseIntrospection {
  #schema: SchemaCache | null = null;

  /** @internal Runs one introspection query and returns all its rows. */
  protected abstract introspectionQuery: introspect.SqlRunner;
  /** @internal The same, without logging a failure (a probe whose failure is the answer). */
  protected abstract probeQuery: introspect.SqlRunner;
  /** @internal The table's metadata (`hidden`, `fts_table`, `label_column`…). */
  protected abstract tableConfigFor(table: string): Record<string, unknown>;
  /** @internal True when the schema can never change (immutable files). */
  protected abstract schemaIsFixed(): boolean;

  /** @internal Drops memoised answers; called after writes. */
  protected schemaChanged(): void {
    this.#schema?.invalidate();
  }

  #cached<T>(key: string, compute: (run: introspect.SqlRunner) => Promise<T>): Promise<T> {
    this.#schema ??= new SchemaCache(
      (sql, params) => this.introspectionQuery(sql, params),
      this.schemaIsFixed(),
    );
    return this.#schema.get(key, () => compute(this.introspectionQuery));
  }

  /** `run`, its answers memoised by SQL text and parameters (the same for every table). */
  #cachedRun: introspect.SqlRunner = (sql, params) =>
    this.#cached(`sql:${sql}:${JSON.stringify(params ?? null)}`, (run) => run(sql, params));

  /**
   * Every main-schema table's columns and primary key, read in one query (`introspect_bulk.ts`);
   * null when some table cannot be read, and the tables are then asked about one by one.
   */
  #tableShapes(): Promise<Map<string, TableShape> | null> {
    return this.#cached("all-table-shapes", () => allTableShapes(this.probeQuery).catch(notRead));
  }

  /** The same for outgoing foreign keys; null when some table cannot be read. */
  #foreignKeys(): Promise<Map<string, introspect.ForeignKey[]> | null> {
    return this.#cached(
      "all-foreign-keys",
      () => allOutgoingForeignKeys(this.probeQuery, (t) => this.primary_keys(t)).catch(notRead),
    );
  }

  /** True when `table` is a table of the main schema, which the bulk answers cover. */
  async #inMainSchema(table: string): Promise<boolean> {
    return (await this.table_names()).includes(table);
  }

  /** Attached databases (not `main`): rows with `seq`, `name`, `file`. */
  attached_databases(): Promise<Row[]> {
    // Not cached: ATTACH changes it without touching the schema version.
    return introspect.attachedDatabases(this.introspectionQuery);
  }

  /** True when a table of that name exists. */
  table_exists(table: string): Promise<boolean> {
    return this.#cached(`table?${table}`, (run) => introspect.objectExists(run, table, "table"));
  }

  /** True when a view of that name exists. */
  view_exists(view: string): Promise<boolean> {
    return this.#cached(`view?${view}`, (run) => introspect.objectExists(run, view, "view"));
  }

  /**
   * @internal True when reading `name` gives the same rows whenever the data is the same: a
   * table, or a view that calls only deterministic functions and never reads the clock
   * (`repeatable.ts`). Only such pages are cached or carry an `ETag`.
   */
  is_repeatable(name: string): Promise<boolean> {
    return this.#cached(`repeatable:${name}`, async (run) => {
      if (!await introspect.objectExists(run, name, "view")) return true;
      return await viewIsRepeatable(run, name);
    });
  }

  /**
   * @internal True when the read-only statement `sql` gives the same rows whenever the data is
   * the same (`repeatable.ts`): custom SQL whose answers the query cache may keep and share.
   */
  is_sql_repeatable(sql: string): Promise<boolean> {
    return this.#cached(`repeatable-sql:${sql}`, (run) => selectIsRepeatable(run, sql));
  }

  /** Table names in schema order. */
  table_names(): Promise<string[]> {
    return this.#cached("tables", (run) => introspect.objectNames(run, "table"));
  }

  /** View names in schema order. */
  view_names(): Promise<string[]> {
    return this.#cached("views", (run) => introspect.objectNames(run, "view"));
  }

  /** Tables tied to full-text search or SpatiaLite, `sqlite_stat*`, and `hidden: true` ones. */
  hidden_table_names(): Promise<string[]> {
    // The `hidden` flags come from metadata, which may differ per table; the detection does not.
    return detectHiddenTables(this.#cachedRun, (table) => this.tableConfigFor(table));
  }

  /**
   * Why `table` cannot be read, or null when it can: a virtual table whose module (`vec0`,
   * SpatiaLite's) or FTS tokenizer is not loaded fails every query that touches it, even
   * `pragma table_info`. Listings show such a table as unavailable instead of failing.
   */
  table_unavailable(table: string): Promise<string | null> {
    return this.#cached(`unavailable:${table}`, async () => {
      if ((await this.#tableShapes())?.has(table)) return null;
      try {
        await introspect.columnDetails(this.probeQuery, table);
        return null;
      } catch (error) {
        if (error instanceof QueryInterrupted) throw error;
        return error instanceof Error ? error.message : String(error);
      }
    });
  }

  /** Column names of a table or view (none for an unavailable table). */
  table_columns(table: string): Promise<string[]> {
    return this.#cached(
      `columns:${table}`,
      async () => (await this.table_column_details(table)).map((row) => row[1] as string),
    );
  }

  /** Rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk`, `hidden`. */
  table_column_details(table: string): Promise<Row[]> {
    return this.#cached(
      `details:${table}`,
      async (run) => {
        const known = (await this.#tableShapes())?.get(table);
        if (known) return known.details;
        return await this.table_unavailable(table) ? [] : introspect.columnDetails(run, table);
      },
    );
  }

  /** Declared primary key columns in key order; `[]` for rowid and unavailable tables. */
  primary_keys(table: string): Promise<string[]> {
    return this.#cached(
      `pks:${table}`,
      async (run) => {
        const known = (await this.#tableShapes())?.get(table);
        if (known) return known.primary_keys;
        return await this.table_unavailable(table) ? [] : introspect.primaryKeys(run, table);
      },
    );
  }

  /** The full-text table for `table` (metadata `fts_table` first), or null. */
  fts_table(table: string): Promise<string | null> {
    const config = this.tableConfigFor(table);
    return this.#cached(
      `fts:${table}:${JSON.stringify(config.fts_table ?? null)}`,
      // The list of full-text tables is read once for all tables.
      () => detectFtsTable(this.#cachedRun, table, config),
    );
  }

  /** The label column (metadata `label_column`, else detected), or null. */
  label_column_for_table(table: string): Promise<string | null> {
    const config = this.tableConfigFor(table);
    return this.#cached(
      `label:${table}:${JSON.stringify(config.label_column ?? null)}`,
      async (run) =>
        await this.table_unavailable(table) ? null : detectLabelColumn(run, table, config),
    );
  }

  /** Outgoing foreign keys as `{column, other_table, other_column}`. */
  foreign_keys_for_table(table: string): Promise<introspect.ForeignKey[]> {
    return this.#cached(`fks:${table}`, async (run) => {
      const all = await this.#foreignKeys();
      if (all && await this.#inMainSchema(table)) return all.get(table) ?? [];
      return await introspect.outgoingForeignKeys(run, table);
    });
  }

  /** `CREATE TABLE` plus its `CREATE INDEX` statements, or null. */
  get_table_definition(table: string): Promise<string | null> {
    return this.#cached(
      `tabledef:${table}`,
      (run) => introspect.objectDefinition(run, table, "table"),
    );
  }

  /** `CREATE VIEW` statement, or null. */
  get_view_definition(view: string): Promise<string | null> {
    return this.#cached(`viewdef:${view}`, (run) => introspect.objectDefinition(run, view, "view"));
  }

  /** `{table: {incoming, outgoing}}` for every table. */
  get_all_foreign_keys(): Promise<Record<string, introspect.TableForeignKeys>> {
    return this.#cached(
      "allfks",
      (run) => introspect.allForeignKeys(run, (table) => this.foreign_keys_for_table(table)),
    );
  }
}

/** A bulk question some table could not answer (`null`: ask table by table); never a timeout. */
function notRead(error: unknown): null {
  if (error instanceof QueryInterrupted) throw error;
  return null;
}
