/**
 * Table writes for the JSON write API (`/<db>/-/create`, `/<db>/<table>/-/drop`), on the write
 * connection inside `db.execute_write_fn`. Creating a table and inserting its first rows is one
 * transaction, so a failed create leaves no table behind.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { insertWith, type ReturnedRow, write } from "./row_writes.ts";
import {
  columnsOf,
  type ColumnType,
  columnValues,
  inferColumnType,
  quoteName,
  RowWriteError,
  type WriteRow,
} from "./write_values.ts";

/** One column of a new table. */
export interface ColumnSpec {
  name: string;
  type: ColumnType;
}

/** What to create: explicit columns, or columns inferred from `rows` (which are then inserted). */
export interface CreateTableSpec {
  table: string;
  /** Primary key columns; empty for a rowid table. */
  pks: string[];
  columns?: ColumnSpec[];
  rows?: WriteRow[];
  /** For an existing table: skip or replace rows whose key is taken, add missing columns. */
  ignore?: boolean;
  replace?: boolean;
  alter?: boolean;
}

/** What a create reports: the table's SQL afterwards, and the rows inserted if asked. */
export interface CreateTableResult {
  schema: string;
  created: boolean;
  rows: ReturnedRow[] | null;
}

/**
 * `CREATE TABLE` text laid out one column per line, as the reference writes it:
 * `CREATE TABLE [t] (\n   [id] INTEGER PRIMARY KEY,\n   [title] TEXT\n)`. A single primary key
 * missing from `columns` is added first as an INTEGER (so `pk: "id"` gives an auto-increment id).
 */
export function createTableSql(table: string, columns: ColumnSpec[], pks: string[]): string {
  const all = [...columns];
  const named = new Set(columns.map((column) => column.name.toLowerCase()));
  const missing = pks.filter((pk) => !named.has(pk.toLowerCase()));
  if (missing.length && pks.length > 1) {
    throw new RowWriteError(`Primary key columns missing from the columns: ${missing.join(", ")}`);
  }
  if (missing.length) all.unshift({ name: pks[0], type: "INTEGER" });
  const lines = all.map((column) => {
    const single = pks.length === 1 && column.name.toLowerCase() === pks[0].toLowerCase();
    return `   ${quoteName(column.name)} ${column.type}${single ? " PRIMARY KEY" : ""}`;
  });
  if (pks.length > 1) lines.push(`   PRIMARY KEY (${pks.map(quoteName).join(", ")})`);
  return `CREATE TABLE ${quoteName(table)} (\n${lines.join(",\n")}\n)`;
}

/** Column specs for `rows`: every column they name, typed by {@link inferColumnType}. */
export function columnsForRows(rows: readonly WriteRow[]): ColumnSpec[] {
  return columnsOf(rows).map((name) => ({
    name,
    type: inferColumnType(columnValues(rows, name)),
  }));
}

/**
 * Creates `spec.table` if it does not exist (from `columns`, else from `rows`) and inserts
 * `rows`, all in one transaction.
 */
export function createTable(conn: Connection, spec: CreateTableSpec): CreateTableResult {
  return write(conn, (statements) => {
    const existing = tableSql(conn, spec.table);
    if (existing === null) {
      const columns = spec.columns ?? columnsForRows(spec.rows ?? []);
      conn.exec(createTableSql(spec.table, columns, spec.pks));
    }
    let rows: ReturnedRow[] | null = null;
    if (spec.rows) {
      rows = insertWith(conn, statements, { table: spec.table, pks: spec.pks }, spec.rows, {
        ignore: spec.ignore,
        replace: spec.replace,
        alter: existing !== null && spec.alter,
      });
    }
    return { schema: tableSql(conn, spec.table) ?? "", created: existing === null, rows };
  });
}

/** Drops `table`. */
export function dropTable(conn: Connection, table: string): void {
  write(conn, () => conn.exec(`DROP TABLE ${quoteName(table)}`));
}

/** The `CREATE TABLE` statement SQLite keeps for `table`, or null when there is no such table. */
export function tableSql(conn: Connection, table: string): string | null {
  const row = conn.query("select sql from sqlite_master where type = 'table' and name = ?", [
    table,
  ]).rows[0];
  return row ? String(row[0]) : null;
}
