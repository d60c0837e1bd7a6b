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
  columnValues,
  inferColumnType,
  quoteName,
  RowWriteError,
  type WriteRow,
} from "./write_values.ts";
import type { ForeignKeyShape } from "./alter_plan.ts";

/** One column of a new table. */
export interface ColumnSpec {
  /** The column's name. */
  name: string;
  /** The declared type as written (`INTEGER`, `VARCHAR`...). */
  type: string;
  /** True for `NOT NULL`. */
  notNull?: boolean;
  /** The default as SQL text (`'x'`, `0`, `CURRENT_TIMESTAMP`), or null/absent for none. */
  defaultSql?: string | null;
}

/** How another engine's `CREATE TABLE` differs (PostgreSQL's, `postgres_writes.ts`). */
export interface CreateSqlOptions {
  /** The engine's type for a declared SQLite type (`INTEGER` → `bigint`); as given by default. */
  typeOf?: (type: string) => string;
  /** The type of a single key column not among the columns: an automatic id. */
  autoKey?: string;
  /** Quotes a column name; `[name]` by default. */
  quote?: (name: string) => string;
  /** Names the table in the statement; `[name]` by default. */
  tableName?: (name: string) => string;
}

/** A foreign key of a new table: `column` references `table(to)`. */
export type ForeignKeySpec = Pick<ForeignKeyShape, "column" | "table" | "to">;

/** A foreign key as asked for: without `to`, it points at the other table's primary key. */
export interface ForeignKeyRequest {
  /** The new table's column. */
  column: string;
  /** The table it points at. */
  table: string;
  /** The column it points at; null for that table's single primary key column. */
  to: string | null;
}

/** What to create: explicit columns, or columns inferred from `rows` (which are then inserted). */
export interface CreateTableSpec {
  /** The table's name. */
  table: string;
  /** Primary key columns; empty for a rowid table. */
  pks: string[];
  /** Its columns; absent to infer them from `rows`. */
  columns?: ColumnSpec[];
  /** Foreign keys of a new table; each must point at a primary key or unique column. */
  foreignKeys?: ForeignKeyRequest[];
  /** Rows to insert once it exists. */
  rows?: WriteRow[];
  /** Skip rows whose key is taken. */
  ignore?: boolean;
  /** Replace rows whose key is taken. */
  replace?: boolean;
  /** For a table that exists: add the columns the rows name that it lacks. */
  alter?: boolean;
}

/** What a create reports: the table's SQL afterwards, and the rows inserted if asked. */
export interface CreateTableResult {
  /** The table's SQL afterwards. */
  schema: string;
  /** False when the table existed (and only got rows). */
  created: boolean;
  /** The rows inserted, read back; null without rows. */
  rows: ReturnedRow[] | null;
  /** The `CREATE TABLE` statement run (null when the table existed). */
  statement: string | null;
}

/**
 * `CREATE TABLE` text laid out one column per line, as the reference writes it:
 * `CREATE TABLE [t] (\n   [id] INTEGER PRIMARY KEY,\n   [title] TEXT\n)`. A single primary key
 * missing from `columns` is added first as an INTEGER (so `pk: "id"` gives an auto-increment id).
 */
export function createTableSql(
  table: string,
  columns: ColumnSpec[],
  pks: string[],
  foreignKeys: readonly ForeignKeySpec[] = [],
  {
    typeOf = (type: string) => type,
    autoKey = "INTEGER",
    quote = quoteName,
    tableName = quoteName,
  }: CreateSqlOptions = {},
): string {
  const all = [...columns];
  const named = new Set(columns.map((column) => column.name.toLowerCase()));
  const missing = pks.filter((pk) => !named.has(pk.toLowerCase()));
  if (missing.length && pks.length > 1) {
    throw new RowWriteError(`Primary key columns missing from the columns: ${missing.join(", ")}`);
  }
  const auto: ColumnSpec | null = missing.length ? { name: pks[0], type: autoKey } : null;
  if (auto) all.unshift(auto);
  const lines = all.map((column) => {
    const single = pks.length === 1 && column.name.toLowerCase() === pks[0].toLowerCase();
    const type = column === auto ? column.type : typeOf(column.type);
    let line = `   ${quote(column.name)} ${type}${single ? " PRIMARY KEY" : ""}`;
    if (column.notNull) line += " NOT NULL";
    if (column.defaultSql != null) line += ` DEFAULT ${column.defaultSql}`;
    return line;
  });
  if (pks.length > 1) lines.push(`   PRIMARY KEY (${pks.map(quote).join(", ")})`);
  for (const fk of foreignKeys) {
    lines.push(
      `   FOREIGN KEY (${quote(fk.column)}) REFERENCES ${tableName(fk.table)}(${quote(fk.to)})`,
    );
  }
  return `CREATE TABLE ${tableName(table)} (\n${lines.join(",\n")}\n)`;
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
 * `rows`, all in one transaction. With `apply: false` everything is done and checked, then
 * rolled back: a preview of exactly what applying would do.
 */
export function createTable(
  conn: Connection,
  spec: CreateTableSpec,
  { apply = true }: { apply?: boolean } = {},
): CreateTableResult {
  if (apply) return write(conn, (statements) => createIn(conn, statements, spec));
  conn.exec("BEGIN IMMEDIATE");
  try {
    return write(conn, (statements) => createIn(conn, statements, spec));
  } finally {
    if (conn.inTransaction) conn.exec("ROLLBACK");
  }
}

function createIn(
  conn: Connection,
  statements: Parameters<typeof insertWith>[1],
  spec: CreateTableSpec,
): CreateTableResult {
  const existing = tableSql(conn, spec.table);
  let statement: string | null = null;
  if (existing === null) {
    const columns = spec.columns ?? columnsForRows(spec.rows ?? []);
    const foreignKeys = (spec.foreignKeys ?? []).map((fk) => ({
      ...fk,
      to: fk.to ?? soleKey(conn, spec, fk),
    }));
    statement = createTableSql(spec.table, columns, spec.pks, foreignKeys);
    conn.exec(statement);
    // Checked once the table exists, so a table may reference itself.
    for (const fk of foreignKeys) {
      const problem = parentKeyProblem(conn, fk);
      if (problem) throw new RowWriteError(`Foreign key on ${fk.column}: ${problem}`);
    }
  }
  let rows: ReturnedRow[] | null = null;
  if (spec.rows) {
    rows = insertWith(conn, statements, { table: spec.table, pks: spec.pks }, spec.rows, {
      ignore: spec.ignore,
      replace: spec.replace,
      alter: existing !== null && spec.alter,
    });
  }
  return {
    schema: tableSql(conn, spec.table) ?? "",
    created: existing === null,
    rows,
    statement,
  };
}

/** The primary key column `fk` points at when it names no column: the other table's only one. */
function soleKey(conn: Connection, spec: CreateTableSpec, fk: ForeignKeyRequest): string {
  const self = fk.table.toLowerCase() === spec.table.toLowerCase();
  const pks = self
    ? spec.pks
    : conn.query("select name from pragma_table_info(?) where pk > 0 order by pk", [fk.table])
      .rows.map((row) => String(row[0]));
  if (pks.length !== 1) {
    throw new RowWriteError(
      tableSql(conn, fk.table) === null && !self
        ? `Foreign key on ${fk.column}: there is no table ${fk.table}`
        : `Foreign key on ${fk.column}: ${fk.table} has no single primary key column; name one`,
    );
  }
  return pks[0];
}

/**
 * Why `fk` cannot point where it does, or null: SQLite wants a parent key that is the other
 * table's primary key or has a unique index, else every write to the table fails later with
 * "foreign key mismatch".
 */
function parentKeyProblem(conn: Connection, fk: ForeignKeySpec): string | null {
  if (tableSql(conn, fk.table) === null) return `there is no table ${fk.table}`;
  const columns = conn.query("select name, pk from pragma_table_info(?)", [fk.table]).rows;
  const column = columns.find((row) => String(row[0]).toLowerCase() === fk.to.toLowerCase());
  if (!column) return `${fk.table} has no column ${fk.to}`;
  const pks = columns.filter((row) => Number(row[1]) > 0);
  if (pks.length === 1 && pks[0] === column) return null;
  const uniques = conn.query(
    'select name from pragma_index_list(?) where "unique" and partial = 0',
    [fk.table],
  ).rows;
  for (const [index] of uniques) {
    const indexed = conn.query("select name from pragma_index_info(?)", [String(index)]).rows;
    if (indexed.length === 1 && String(indexed[0][0]).toLowerCase() === fk.to.toLowerCase()) {
      return null;
    }
  }
  return `${fk.table}.${column[0]} is neither its primary key nor unique`;
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

/**
 * For each table, the columns a new foreign key may point at: its single-column primary key and
 * its columns with a unique index of their own (what {@link parentKeyProblem} accepts).
 */
export function keyColumns(conn: Connection): Record<string, string[]> {
  const rows = conn.query(
    `select m.name, p.name from sqlite_master m join pragma_table_info(m.name) p
       where m.type = 'table' and p.pk = 1
         and (select count(*) from pragma_table_info(m.name) where pk > 0) = 1
     union
     select m.name, ii.name from sqlite_master m join pragma_index_list(m.name) il
       join pragma_index_info(il.name) ii
       where m.type = 'table' and il."unique" and il.partial = 0
         and (select count(*) from pragma_index_info(il.name)) = 1`,
  ).rows;
  const keys: Record<string, string[]> = {};
  for (const [table, column] of rows) {
    if (column === null) continue; // an index on an expression
    (keys[String(table)] ??= []).push(String(column));
  }
  return keys;
}
