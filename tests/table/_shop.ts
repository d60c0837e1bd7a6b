/**
 * Test helpers: the examples' shop database in memory (node:sqlite, tests only), its table
 * facts, and a runner for built table queries.
 */

import { DatabaseSync } from "node:sqlite";
import type { FacetDatabase } from "../../src/table/facet_base.ts";
import { buildTableQuery, type TableFacts, type TablePage } from "../../src/table/table_sql.ts";
import { parseTableRequest, type TableRequest } from "../../src/table/table_request.ts";

const EXAMPLES = new URL("../fixtures/examples/", import.meta.url);

/** A fresh in-memory copy of the shop database. */
export function openShop(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(Deno.readTextFileSync(new URL("../fixtures/shop_schema.sql", import.meta.url)));
  return db;
}

/** One recorded example response. */
export interface Example {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Reads `examples/<name>`. */
export function example(name: string): Example {
  return JSON.parse(Deno.readTextFileSync(new URL(name, EXAMPLES)));
}

/** Path and args of an example's `GET /path?query`. */
export function requestOf(ex: Example): { path: string; args: URLSearchParams } {
  const target = ex.request.replace(/^GET /, "");
  const [path, query = ""] = target.split("?");
  return { path, args: new URLSearchParams(query) };
}

const PRODUCTS_COLUMNS = ["id", "name", "category_id", "price", "tags", "added", "notes"];

/** Facts of the shop tables, as introspection would report them. */
export const SHOP_TABLES: Record<string, TableFacts> = {
  products: {
    name: "products",
    columns: PRODUCTS_COLUMNS,
    pks: ["id"],
    is_view: false,
    column_types: { id: "INTEGER", price: "REAL", category_id: "INTEGER" },
    fts_table: "products_fts",
    fts_columns: ["name"],
    is_fts5: true,
  },
  order_items: {
    name: "order_items",
    columns: ["order_id", "product_id", "quantity"],
    pks: ["order_id", "product_id"],
    is_view: false,
  },
  cheap_products: {
    name: "cheap_products",
    columns: ["id", "name", "price"],
    pks: [],
    is_view: true,
    column_types: { price: "REAL" },
  },
  log: { name: "log", columns: ["message", "level"], pks: [], is_view: false },
  categories: { name: "categories", columns: ["id", "name"], pks: ["id"], is_view: false },
};

/** Runs `sql` and returns rows as arrays plus column names. */
export function runArrays(
  db: DatabaseSync,
  sql: string,
  params: Record<string, unknown> | unknown[] = {},
): { rows: unknown[][]; columns: string[] } {
  const statement = db.prepare(sql);
  // Typed in Node's newer declarations only; Deno 2.9 implements it.
  (statement as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true);
  // deno-lint-ignore no-explicit-any
  const bound: any[] = Array.isArray(params) ? params : [params];
  const rows = statement.all(...bound) as unknown as unknown[][];
  return { rows, columns: statement.columns().map((c) => c.name) };
}

/** `execute()` over node:sqlite; `interrupt` makes every query fail as a time-out. */
export function facetDatabase(db: DatabaseSync, options: { interrupt?: boolean } = {}) {
  const calls: { sql: string; custom_time_limit?: number }[] = [];
  const database: FacetDatabase = {
    execute(sql, params = {}, opts = {}) {
      calls.push({ sql, custom_time_limit: opts.custom_time_limit });
      if (options.interrupt && !sql.includes("limit 0")) {
        const error = new Error("SQL query took too long");
        error.name = "QueryInterrupted";
        return Promise.reject(error);
      }
      return Promise.resolve(runArrays(db, sql, params));
    },
  };
  return { database, calls };
}

/** The table request of an HTML page with these arguments. */
export function tableRequest(args: URLSearchParams | string): TableRequest {
  return parseTableRequest([...new URLSearchParams(args)], { format: null, full_export: false });
}

/** Builds and runs a table query, returning the page as the JSON would show it. */
export async function runTable(
  db: DatabaseSync,
  table: string,
  query: string,
): Promise<TablePage & { description: string; sql: string }> {
  const built = buildTableQuery({ table: SHOP_TABLES[table], request: tableRequest(query) });
  const statement = db.prepare(built.sql);
  const rows = statement.all(built.params as Record<string, string>) as Record<string, unknown>[];
  const plain = rows.map((row) => ({ ...row }));
  const page = await built.page(plain, (sql, params) => {
    const found = db.prepare(sql).get(params as Record<string, string>);
    return Promise.resolve(found ? { ...found } : null);
  });
  return { ...page, description: built.human_description_en, sql: built.sql };
}

/** Rows of a built query (`sql` + `params`) as plain objects. */
export function queryRows(
  db: DatabaseSync,
  built: { sql: string; params: Record<string, unknown> },
): Record<string, unknown>[] {
  const params = built.params as Record<string, string | number | null>;
  return db.prepare(built.sql).all(params).map((row) => ({ ...row }));
}
