/**
 * The spec's `resolve_database` / `resolve_table` / `resolve_row`: from a request's route groups
 * (`database`, `table`, `pks`, tilde-encoded) to the database, table and row they name, or the
 * matching "not found" error.
 *
 * @module
 */
import type { Database } from "../db/database.ts";
import type { Row } from "../db/results.ts";
import type { Service } from "../service.ts";
import { tilde_decode } from "../util/tilde.ts";
import { DatabaseNotFound, RowNotFound, TableNotFound } from "../http/errors.ts";
import type { Request } from "../http/request.ts";

/** A resolved table: the spec's ResolvedTable `(db, table, is_view)`. */
export interface ResolvedTable {
  db: Database;
  table: string;
  is_view: boolean;
}

/** A resolved row: the spec's ResolvedRow. */
export interface ResolvedRow extends ResolvedTable {
  sql: string;
  params: Record<string, unknown>;
  pks: string[];
  pk_values: string[];
  row: Row;
}

/** Database named by the `database` group of the route; DatabaseNotFound otherwise. */
export function resolveDatabase(svc: Service, request: Request): Database {
  const route = tilde_decode(request.url_vars.database ?? "");
  const db = svc.databaseForRoute(route);
  if (!db) throw new DatabaseNotFound(route);
  return db;
}

/** `{db, table, is_view}` for the `database` and `table` route groups. */
export async function resolveTable(svc: Service, request: Request): Promise<ResolvedTable> {
  const db = svc.resolve_database(request);
  const table = tilde_decode(request.url_vars.table ?? "");
  if (await db.table_exists(table)) return { db, table, is_view: false };
  if (await db.view_exists(table)) return { db, table, is_view: true };
  throw new TableNotFound(db.name, table);
}

/**
 * The row named by the `pks` route group (comma-separated key values; `rowid` for tables
 * without a primary key); RowNotFound when there is none.
 */
export async function resolveRow(svc: Service, request: Request): Promise<ResolvedRow> {
  const { db, table, is_view } = await svc.resolve_table(request);
  const pk_values = (request.url_vars.pks ?? "").split(",").map(tilde_decode);
  let pks = await db.primary_keys(table);
  const useRowid = pks.length === 0;
  if (useRowid) pks = ["rowid"];
  const where = pks.map((pk, i) => `[${pk.replaceAll("]", "]]")}] = :p${i}`).join(" and ");
  const params = Object.fromEntries(pk_values.map((value, i) => [`p${i}`, value]));
  const select = useRowid ? "rowid, *" : "*";
  const sql = `select ${select} from [${table.replaceAll("]", "]]")}] where ${where}`;
  const results = await db.execute(sql, params);
  const row = results.first();
  if (!row) throw new RowNotFound(db.name, table, pk_values);
  return { db, table, is_view, sql, params, pks, pk_values, row };
}
