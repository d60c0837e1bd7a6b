/**
 * The introspection members of a PostgreSQL database (`table_names()`, `primary_keys()`, …)
 * from its catalogs (`postgres_introspect.ts`), each answer kept a moment: PostgreSQL has no
 * cheap "schema changed" counter, so answers are read again after {@link CATALOG_TTL_MS}.
 *
 * @module
 */

import type { Row } from "./results.ts";
import type { ForeignKey, TableForeignKeys } from "./introspect.ts";
import * as catalog from "./postgres_introspect.ts";

/** How long catalog answers are kept. */
const CATALOG_TTL_MS = 2000;

/** Introspection for a PostgreSQL database; `PostgresDatabase` supplies the queries. */
export abstract class PostgresIntrospection {
  #answers = new Map<string, { at: number; value: Promise<unknown> }>();

  /** Schemas served. */
  abstract readonly schemas: string[];
  /** @internal Runs one catalog query. */
  protected abstract catalogRun: catalog.PgRunner;
  /** @internal The table's metadata (`hidden`, `fts_table`, `label_column`…). */
  protected abstract tableConfigFor(table: string): Record<string, unknown>;

  /** @internal Drops the kept answers (after a write that may change the schema). */
  protected schemaChanged(): void {
    this.#answers.clear();
  }

  #cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.#answers.get(key);
    const now = Date.now();
    if (kept && now - kept.at < CATALOG_TTL_MS) return kept.value as Promise<T>;
    const value = compute();
    this.#answers.set(key, { at: now, value });
    value.catch(() => this.#answers.delete(key));
    return value;
  }

  #relations(): Promise<catalog.PgRelation[]> {
    return this.#cached("relations", () => catalog.listRelations(this.catalogRun, this.schemas));
  }

  async #relation(name: string): Promise<catalog.PgRelation | null> {
    return (await this.#relations()).find((r) => r.name === name) ?? null;
  }

  async #names(type: "table" | "view"): Promise<string[]> {
    return (await this.#relations()).filter((r) => r.type === type).map((r) => r.name);
  }

  /** No attached databases on PostgreSQL. */
  attached_databases(): Promise<Row[]> {
    return Promise.resolve([]);
  }

  /** True when a table of that name exists. */
  async table_exists(table: string): Promise<boolean> {
    return (await this.#relation(table))?.type === "table";
  }

  /** True when a view of that name exists. */
  async view_exists(view: string): Promise<boolean> {
    return (await this.#relation(view))?.type === "view";
  }

  /** False for views (they may read the clock); true for tables. @internal */
  async is_repeatable(name: string): Promise<boolean> {
    return (await this.#relation(name))?.type !== "view";
  }

  /** False: custom SQL on PostgreSQL is never shared (no check of its functions yet). @internal */
  is_sql_repeatable(_sql: string): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** Table names (creation order within each schema). */
  table_names(): Promise<string[]> {
    return this.#names("table");
  }

  /** View names (materialized views included). */
  view_names(): Promise<string[]> {
    return this.#names("view");
  }

  /** Tables configured `hidden: true`. */
  async hidden_table_names(): Promise<string[]> {
    const tables = await this.table_names();
    return tables.filter((table) => this.tableConfigFor(table)?.hidden);
  }

  /** Null: a listed relation is always readable. */
  table_unavailable(_table: string): Promise<string | null> {
    return Promise.resolve(null);
  }

  /** Column names of a table or view. */
  async table_columns(table: string): Promise<string[]> {
    return (await this.table_column_details(table)).map((row) => String(row[1]));
  }

  /** Rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk`, `hidden`. */
  table_column_details(table: string): Promise<Row[]> {
    return this.#cached(`details:${table}`, async () => {
      const relation = await this.#relation(table);
      return relation ? await catalog.columnDetails(this.catalogRun, relation.oid) : [];
    });
  }

  /** Primary key columns in key order; `[]` without one (no row pages then: see docs). */
  primary_keys(table: string): Promise<string[]> {
    return this.#cached(`pks:${table}`, async () => {
      const relation = await this.#relation(table);
      return relation ? await catalog.primaryKeys(this.catalogRun, relation.oid) : [];
    });
  }

  /** Metadata's `fts_table`, else null (search over `tsvector` is the dialect's). */
  fts_table(table: string): Promise<string | null> {
    const config = this.tableConfigFor(table) ?? {};
    return Promise.resolve(typeof config.fts_table === "string" ? config.fts_table : null);
  }

  /** The label column (metadata `label_column`, else detected as for SQLite). */
  label_column_for_table(table: string): Promise<string | null> {
    const config = this.tableConfigFor(table) ?? {};
    return this.#cached(
      `label:${table}:${JSON.stringify(config.label_column ?? null)}`,
      async () => {
        const relation = await this.#relation(table);
        return relation ? await catalog.labelColumn(this.catalogRun, relation.oid, config) : null;
      },
    );
  }

  /** Outgoing foreign keys. */
  async foreign_keys_for_table(table: string): Promise<ForeignKey[]> {
    return (await this.get_all_foreign_keys())[table]?.outgoing ?? [];
  }

  /** A `CREATE TABLE` rebuilt from the catalogs, with its indexes; null when missing. */
  get_table_definition(table: string): Promise<string | null> {
    return this.#definition(table, "table");
  }

  /** `CREATE VIEW … AS` and the view's query; null when missing. */
  get_view_definition(view: string): Promise<string | null> {
    return this.#definition(view, "view");
  }

  #definition(name: string, type: "table" | "view"): Promise<string | null> {
    return this.#cached(`def:${type}:${name}`, async () => {
      const relation = await this.#relation(name);
      if (!relation || relation.type !== type) return null;
      return await catalog.definition(this.catalogRun, relation);
    });
  }

  /** `{table: {incoming, outgoing}}` for every table. */
  get_all_foreign_keys(): Promise<Record<string, TableForeignKeys>> {
    return this.#cached(
      "allfks",
      async () => catalog.allForeignKeys(this.catalogRun, await this.#relations()),
    );
  }
}
