/**
 * The spec's `resolve_database` / `resolve_table` / `resolve_row`: from a request's route groups
 * (`database`, `table`, `pks`, tilde-encoded) to the database, table and row they name, or the
 * matching "not found" error.
 *
 * @module
 */
import type { DatabaseEngine as Database } from "../db/engine.ts";
import type { SqlValue } from "../db/values.ts";
import type { SqlDialect } from "../db/dialect.ts";
import { rowPathValues, tilde_decode } from "../util/tilde.ts";
import { keyText, numberFromText } from "../util/key_text.ts";
import {
  DatabaseNotFound,
  NotFound,
  RowNotFound,
  TableNotFound,
  TableUnavailable,
} from "../http/errors.ts";
import type { Request } from "../http/request.ts";
import type { ResolvedRow, ResolvedTable } from "../views/host.ts";

/** The attached databases, by name. */
type Databases = ReadonlyMap<string, Database>;

/** The database a route segment names (its `route`, which defaults to its name). */
export function databaseForRoute(databases: Databases, route: string): Database | null {
  for (const db of databases.values()) {
    if (db.route === route) return db;
  }
  return null;
}

/** Database named by the `database` group of the route; DatabaseNotFound otherwise. */
export function resolveDatabase(databases: Databases, request: Request): Database {
  const route = tilde_decode(request.url_vars.database ?? "");
  const db = databaseForRoute(databases, route);
  // `/-/…` is where the instance's own pages live: an unknown one is a missing page, not a
  // missing database called "-".
  if (!db && route === "-") throw new NotFound("Page not found");
  if (!db) throw new DatabaseNotFound(route);
  return db;
}

/** A request's resolved table, and the route groups and databases it was resolved from. */
interface KeptTable {
  databases: Databases;
  database: string | undefined;
  table: string | undefined;
  answer: Promise<ResolvedTable>;
}

const keptTables = new WeakMap<Request, KeptTable>();

/**
 * `{db, table, is_view}` for the `database` and `table` route groups. Resolved once per request:
 * a row page asks three times (its `ETag`, its view, its row), each a pair of introspection
 * look-ups. Asked again after the route groups changed (a plugin may change `url_vars`), it
 * resolves afresh; a failure is not kept.
 */
export function resolveTable(databases: Databases, request: Request): Promise<ResolvedTable> {
  const { database, table } = request.url_vars;
  const kept = keptTables.get(request);
  if (
    kept && kept.databases === databases && kept.database === database && kept.table === table
  ) return kept.answer;
  const answer = lookUpTable(databases, request);
  keptTables.set(request, { databases, database, table, answer });
  answer.catch(() => {
    if (keptTables.get(request)?.answer === answer) keptTables.delete(request);
  });
  return answer;
}

async function lookUpTable(databases: Databases, request: Request): Promise<ResolvedTable> {
  const db = resolveDatabase(databases, request);
  const table = tilde_decode(request.url_vars.table ?? "");
  const is_view = !(await db.table_exists(table));
  if (is_view && !(await db.view_exists(table))) throw new TableNotFound(db.name, table);
  const unavailable = await db.table_unavailable(table);
  if (unavailable) throw new TableUnavailable(db.name, table, unavailable);
  return { db, table, is_view };
}

/**
 * The row named by the `pks` route group (comma-separated key values; `rowid` for tables
 * without a primary key); RowNotFound when there is none.
 */
export async function resolveRow(databases: Databases, request: Request): Promise<ResolvedRow> {
  const { db, table, is_view } = await resolveTable(databases, request);
  const keys = rowPathValues(request.url_vars.pks ?? "");
  const pk_values = keys.map(keyText);
  const declared = await db.primary_keys(table);
  if (db.engine !== "sqlite" && declared.length === 0) {
    // PostgreSQL's row address (ctid) changes when a row is updated or the table vacuumed: a
    // table without a primary key has no row pages there (docs/postgres.md).
    throw new NotFound(`Table "${table}" has no primary key, so its rows have no pages`);
  }
  const { sql, pks } = db.engine === "sqlite"
    ? rowQuery(table, declared)
    : quotedRowQuery(db.dialect, table, declared);
  const values: SqlValue[] = keys;
  let params = Object.fromEntries(values.map((value, i) => [`p${i}`, value]));
  if (db.engine !== "sqlite") {
    // A key that is no value of the column's type ("abc" for an integer) names no row.
    const results = await db.execute(sql, params, { log_sql_errors: false }).catch((error) => {
      if (error?.name === "QueryError") throw new RowNotFound(db.name, table, pk_values);
      throw error;
    });
    const row = results.first();
    if (!row) throw new RowNotFound(db.name, table, pk_values);
    const pkList = [...pks];
    return { db, table, is_view, sql, params, pks: pkList, pk_values, row, real_columns: [] };
  }
  let results = await db.execute(sql, params);
  let row = results.first();
  const asNumber = (value: SqlValue) => typeof value === "string" ? numberFromText(value) : null;
  if (!row && values.some((value) => asNumber(value) !== null)) {
    // A key column declared without a type keeps numbers as numbers, which the text of the URL
    // does not equal: look again with the numbers as numbers.
    const numbers = values.map((value) => asNumber(value) ?? value);
    params = Object.fromEntries(numbers.map((value, i) => [`p${i}`, value]));
    results = await db.execute(sql, params);
    row = results.first();
  }
  if (!row) throw new RowNotFound(db.name, table, pk_values);
  return {
    db,
    table,
    is_view,
    sql,
    params,
    pks: [...pks],
    pk_values,
    row,
    real_columns: results.real_columns,
  };
}

/** A table's row query, by its primary keys as the schema cache hands them out (one list per table). */
const rowQueries = new WeakMap<
  readonly string[],
  Map<string, { sql: string; pks: readonly string[] }>
>();

/** `select * from "table" where "pk" = :p0 and …` in another engine's dialect. */
function quotedRowQuery(dialect: SqlDialect, table: string, declared: readonly string[]) {
  const where = declared.map((pk, i) => `${dialect.quoteIdentifier(pk)} = :p${i}`).join(" and ");
  return { sql: `select * from ${dialect.tableName(table)} where ${where}`, pks: declared };
}

/** `select … where [pk] = :p0 and …` for `table` keyed by `declared` (the rowid when none). */
function rowQuery(table: string, declared: readonly string[]) {
  let byTable = rowQueries.get(declared);
  const kept = byTable?.get(table);
  if (kept) return kept;
  const useRowid = declared.length === 0;
  const pks = useRowid ? ["rowid"] : [...declared];
  const where = pks.map((pk, i) => `[${pk.replaceAll("]", "]]")}] = :p${i}`).join(" and ");
  const select = useRowid ? "rowid, *" : "*";
  const query = {
    sql: `select ${select} from [${table.replaceAll("]", "]]")}] where ${where}`,
    pks: Object.freeze(pks),
  };
  if (!byTable) rowQueries.set(declared, byTable = new Map());
  byTable.set(table, query);
  return query;
}
