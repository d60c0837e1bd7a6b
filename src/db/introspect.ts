/**
 * Schema introspection as functions of a query runner, so they work the same on a main-thread
 * `Connection` (`connectionRunner`) and through `Database.execute` (every kind of database).
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";
import { makeRows, type Row } from "./results.ts";

/** Runs one read query and returns its rows (arrays; `Row`s answer `row["column"]` too). */
export type SqlRunner = (sql: string, params?: BindParams) => Promise<Row[]>;

/** A foreign key seen from one table. */
export interface ForeignKey {
  /** The column holding the key. */
  column: string;
  /** The table it points to. */
  other_table: string;
  /** The column it points to. */
  other_column: string;
}

/** Incoming and outgoing foreign keys of one table. */
export interface TableForeignKeys {
  /** Keys in other tables pointing at this one. */
  incoming: ForeignKey[];
  /** Keys of this table pointing elsewhere. */
  outgoing: ForeignKey[];
}

/** A runner over a main-thread connection (no time limit, no row cap). */
export function connectionRunner(conn: Connection): SqlRunner {
  return (sql, params) => {
    const { columns, rows } = conn.query(sql, params);
    return Promise.resolve(makeRows(columns, rows));
  };
}

const firstColumn = (rows: Row[]) => rows.map((row) => row[0] as string);

/** `PRAGMA database_list` without `main`: rows with `seq`, `name`, `file`. */
export async function attachedDatabases(run: SqlRunner): Promise<Row[]> {
  return (await run("select seq, name, file from pragma_database_list where seq > 0"));
}

/** Names of the objects of one `type` ("table" or "view") in `sqlite_master` order. */
export async function objectNames(run: SqlRunner, type: "table" | "view"): Promise<string[]> {
  return firstColumn(await run("select name from sqlite_master where type = ?", [type]));
}

/** True when a table (or view, with `type`) of that exact name exists. */
export async function objectExists(
  run: SqlRunner,
  name: string,
  type: "table" | "view" = "table",
): Promise<boolean> {
  const rows = await run("select 1 from sqlite_master where type = ? and name = ?", [type, name]);
  return rows.length > 0;
}

/**
 * Column details (hidden columns of virtual tables included, as `table_xinfo` reports them):
 * rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk` (1/0), `hidden`.
 */
export function columnDetails(run: SqlRunner, table: string): Promise<Row[]> {
  return run(
    `select cid, name, type, "notnull", dflt_value as default_value,
      case when pk > 0 then 1 else 0 end as is_pk, hidden
    from pragma_table_xinfo(?) order by cid`,
    [table],
  );
}

/** Column names of a table or view. */
export async function columnNames(run: SqlRunner, table: string): Promise<string[]> {
  return (await columnDetails(run, table)).map((row) => row[1] as string);
}

/** Declared primary key columns in key order; `[]` for tables keyed by rowid only. */
export async function primaryKeys(run: SqlRunner, table: string): Promise<string[]> {
  return firstColumn(
    await run("select name from pragma_table_info(?) where pk > 0 order by pk", [table]),
  );
}

/**
 * Outgoing foreign keys; a reference without columns (`references other`) points at the other
 * table's primary key, column `seq` of a compound one.
 */
export async function outgoingForeignKeys(run: SqlRunner, table: string): Promise<ForeignKey[]> {
  const rows = await run(
    `select "from", "table", "to", seq from pragma_foreign_key_list(?) order by id, seq`,
    [table],
  );
  const keys: ForeignKey[] = [];
  for (const [from, otherTable, to, seq] of rows as SqlValue[][]) {
    const otherColumn = to ??
      (await primaryKeys(run, String(otherTable)))[Number(seq)] ?? "rowid";
    keys.push({
      column: String(from),
      other_table: String(otherTable),
      other_column: String(otherColumn),
    });
  }
  return keys;
}

/**
 * Every table's `{incoming, outgoing}` foreign keys (references to missing tables skipped; each
 * table's outgoing ones from `outgoing`, by default a query per table), each
 * list sorted by other table, column and other column as 1.0 sorts them: the order no longer
 * depends on the order of `CREATE TABLE` statements and their constraints.
 */
export async function allForeignKeys(
  run: SqlRunner,
  outgoing: (table: string) => Promise<ForeignKey[]> = (table) => outgoingForeignKeys(run, table),
): Promise<Record<string, TableForeignKeys>> {
  const tables = await objectNames(run, "table");
  const result: Record<string, TableForeignKeys> = {};
  for (const table of tables) result[table] = { incoming: [], outgoing: [] };
  for (const table of tables) {
    for (const fk of await outgoing(table)) {
      if (!(fk.other_table in result)) continue;
      result[fk.other_table].incoming.push({
        other_table: table,
        column: fk.other_column,
        other_column: fk.column,
      });
      result[table].outgoing.push({
        other_table: fk.other_table,
        column: fk.column,
        other_column: fk.other_column,
      });
    }
  }
  const key = (fk: ForeignKey) => [fk.other_table, fk.column, fk.other_column];
  const byKey = (a: ForeignKey, b: ForeignKey) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  };
  for (const keys of Object.values(result)) {
    keys.incoming.sort(byKey);
    keys.outgoing.sort(byKey);
  }
  return result;
}

/** `CREATE` statement of a table (plus its indexes) or view, each ending in `;`, or null. */
export async function objectDefinition(
  run: SqlRunner,
  name: string,
  type: "table" | "view" = "table",
): Promise<string | null> {
  const rows = await run("select sql from sqlite_master where name = ? and type = ?", [name, type]);
  if (rows.length === 0 || rows[0][0] === null) return null;
  const statements = [`${rows[0][0]};`];
  const indexes = await run(
    "select sql from sqlite_master where tbl_name = ? and type = 'index' and sql is not null",
    [name],
  );
  for (const [sql] of indexes) statements.push(`${sql};`);
  return statements.join("\n");
}
