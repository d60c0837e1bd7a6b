/**
 * Row writes for the JSON write API, run on the write connection inside
 * `db.execute_write_fn`. Each function is one transaction: it commits everything or, on any
 * error, rolls back so the table is exactly as before. SQLite's complaints about the data reach
 * the caller as `RowWriteError` with SQLite's message.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { BindValue } from "../sqlite/values.ts";
import { inTransaction } from "./write_ops.ts";
import { isForeignKeyFailure, referrers, referrersText, RowChecks } from "./write_checks.ts";
import {
  bindable,
  clientErrors,
  columnsOf,
  columnValues,
  inferColumnType,
  isWithoutRowid,
  liveColumns,
  placeholder,
  quoteName,
  RowWriteError,
  Statements,
  type WriteRow,
} from "./write_values.ts";

/** The write connection `db.execute_write_fn` hands to its function. */
export type WriteConnection = Connection;

/** A row read back after a write: column → value. */
export type ReturnedRow = Record<string, unknown>;

/** How rows are identified: the declared primary key columns, or `["rowid"]`. */
export interface KeyedTable {
  /** The table's name. */
  table: string;
  /** Declared primary key columns; empty for rowid tables. */
  pks: readonly string[];
}

/** Options of {@link insertRows}. */
export interface InsertOptions {
  /** Skip rows that violate a uniqueness constraint (`INSERT OR IGNORE`). */
  ignore?: boolean;
  /** Replace rows with the same key (`INSERT OR REPLACE`). */
  replace?: boolean;
  /** Add columns the table lacks before inserting. */
  alter?: boolean;
  /** Read the inserted rows back. */
  returning?: boolean;
}

/**
 * Inserts `rows`, each with exactly the columns it names (so the others take their defaults; an
 * empty row inserts `DEFAULT VALUES`). Returns the inserted rows when asked; rows skipped by
 * `ignore` are not reported.
 */
export function insertRows(
  conn: Connection,
  target: KeyedTable,
  rows: readonly WriteRow[],
  options: InsertOptions = {},
): ReturnedRow[] | null {
  return write(conn, (statements) => insertWith(conn, statements, target, rows, options));
}

/** {@link insertRows} inside a transaction the caller opened (table creation uses it). */
export function insertWith(
  conn: Connection,
  statements: Statements,
  target: KeyedTable,
  rows: readonly WriteRow[],
  options: InsertOptions = {},
): ReturnedRow[] | null {
  const verb = options.replace
    ? "INSERT OR REPLACE"
    : options.ignore
    ? "INSERT OR IGNORE"
    : "INSERT";
  if (options.alter) addMissingColumns(conn, target.table, rows);
  // A WITHOUT ROWID table has no rowid to find a row by; its key columns are in the row.
  const withoutRowid = options.returning && target.pks.length > 0 &&
    isWithoutRowid(conn, target.table);
  const table = quoteName(target.table);
  const checks = new RowChecks(conn, target.table, statements);
  const keyedByPk = isWithoutRowid(conn, target.table);
  const pkWhere = target.pks.map((key) => `${quoteName(key)} = ?`).join(" AND ");
  const inserted: BindValue[][] = [];
  // Rows of a batch usually share their columns and value kinds: the SQL is built once per shape.
  let shape = "";
  let sql = "";
  for (const [i, row] of rows.entries()) {
    const label = rowLabel(rows, i);
    const columns = Object.keys(row);
    const placeholders = columns.map((column) => placeholder(row[column]));
    const rowShape = columns.join("\u0000") + "\u0001" + placeholders.join("");
    if (rowShape !== shape || !sql) {
      shape = rowShape;
      sql = columns.length
        ? `${verb} INTO ${table} (${columns.map(quoteName).join(", ")}) ` +
          `VALUES (${placeholders.join(", ")})`
        : `${verb} INTO ${table} DEFAULT VALUES`;
    }
    const changed = checks.foreignKeys(
      row,
      label,
      () => statements.run(sql, columns.map((column) => bindable(row[column]))),
    );
    if (changed === 0) continue;
    if (keyedByPk) {
      checks.storedTypes(row, pkWhere, target.pks.map((pk) => bindable(row[pk])), label);
    } else checks.storedTypes(row, "rowid = ?", [conn.lastInsertRowid], label);
    if (!options.returning) continue;
    inserted.push(
      withoutRowid ? target.pks.map((pk) => bindable(row[pk])) : [conn.lastInsertRowid],
    );
  }
  if (!options.returning) return null;
  return withoutRowid
    ? fetchRows(statements, target.table, target.pks, inserted, false)
    : fetchRows(statements, target.table, ["rowid"], inserted, !target.pks.length);
}

/**
 * Inserts or updates each row by its key (primary key columns or `rowid`, which every row must
 * carry): an existing row gets the columns this row names and keeps the others; a new row is
 * inserted with the columns it names. Returns the rows afterwards when asked.
 */
export function upsertRows(
  conn: Connection,
  target: KeyedTable,
  rows: readonly WriteRow[],
  options: { alter?: boolean; returning?: boolean } = {},
): ReturnedRow[] | null {
  const keys = target.pks.length ? [...target.pks] : ["rowid"];
  const where = keys.map((key) => `${quoteName(key)} = ?`).join(" AND ");
  const table = quoteName(target.table);
  return write(conn, (statements) => {
    if (options.alter) addMissingColumns(conn, target.table, rows);
    const checks = new RowChecks(conn, target.table, statements);
    const touched: BindValue[][] = [];
    for (const [i, row] of rows.entries()) {
      const label = rowLabel(rows, i);
      const keyValues = keys.map((key) => bindable(row[key]));
      const exists = statements.all(`SELECT 1 FROM ${table} WHERE ${where}`, keyValues).length;
      const columns = Object.keys(row);
      if (exists) {
        const others = columns.filter((column) => !keys.includes(column));
        if (others.length) {
          const set = others.map((column) => `${quoteName(column)} = ${placeholder(row[column])}`);
          checks.foreignKeys(
            row,
            label,
            () =>
              statements.run(`UPDATE ${table} SET ${set.join(", ")} WHERE ${where}`, [
                ...others.map((column) => bindable(row[column])),
                ...keyValues,
              ]),
          );
        }
      } else {
        checks.foreignKeys(row, label, () =>
          statements.run(
            `INSERT INTO ${table} (${columns.map(quoteName).join(", ")}) ` +
              `VALUES (${columns.map((column) => placeholder(row[column])).join(", ")})`,
            columns.map((column) => bindable(row[column])),
          ));
      }
      checks.storedTypes(row, where, keyValues, label);
      touched.push(keyValues);
    }
    if (!options.returning) return null;
    return fetchRows(statements, target.table, keys, touched, !target.pks.length);
  });
}

/**
 * Sets the columns of `update` on the row whose key columns equal `keyValues`. Returns the row
 * afterwards (found by its new key, should the update change it) when asked, else null.
 */
export function updateRow(
  conn: Connection,
  target: KeyedTable,
  keyValues: readonly unknown[],
  update: WriteRow,
  options: { alter?: boolean; returning?: boolean } = {},
): ReturnedRow | null {
  const keys = target.pks.length ? [...target.pks] : ["rowid"];
  const where = keys.map((key) => `${quoteName(key)} = ?`).join(" AND ");
  return write(conn, (statements) => {
    if (options.alter) addMissingColumns(conn, target.table, [update]);
    const columns = Object.keys(update);
    const newKey = keys.map((key, i) => bindable(key in update ? update[key] : keyValues[i]));
    if (columns.length) {
      const checks = new RowChecks(conn, target.table, statements);
      const set = columns.map((column) => `${quoteName(column)} = ${placeholder(update[column])}`);
      const oldKey = keyValues.map(bindable);
      checks.foreignKeys(
        update,
        "",
        () =>
          statements.run(
            `UPDATE ${quoteName(target.table)} SET ${set.join(", ")} WHERE ${where}`,
            [...columns.map((column) => bindable(update[column])), ...oldKey],
          ),
        () => {
          const found = referrers(conn, target.table, where, oldKey);
          return found.length
            ? `Cannot change the key: ${referrersText(found)} reference this row`
            : null;
        },
      );
      checks.storedTypes(update, where, newKey, "");
    }
    if (!options.returning) return null;
    return fetchRows(statements, target.table, keys, [newKey], !target.pks.length)[0] ?? null;
  });
}

/** Deletes the row whose key columns equal `keyValues`; returns how many rows went. */
export function deleteRow(
  conn: Connection,
  target: KeyedTable,
  keyValues: readonly unknown[],
): number {
  const keys = target.pks.length ? [...target.pks] : ["rowid"];
  const where = keys.map((key) => `${quoteName(key)} = ?`).join(" AND ");
  const key = keyValues.map(bindable);
  return write(conn, (statements) => {
    try {
      return statements.run(`DELETE FROM ${quoteName(target.table)} WHERE ${where}`, key);
    } catch (error) {
      if (!isForeignKeyFailure(error)) throw error;
      const found = referrers(conn, target.table, where, key);
      if (!found.length) throw error;
      throw new RowWriteError(`Cannot delete: ${referrersText(found)} reference this row`, {
        cause: error,
      });
    }
  });
}

/** "Row 3" in a batch of several rows, "" for a single row. */
function rowLabel(rows: readonly WriteRow[], index: number): string {
  return rows.length > 1 ? `Row ${index + 1}` : "";
}

/**
 * Adds the columns `rows` name that `table` lacks (compared without case, as SQLite does), each
 * typed from the values it will receive. Runs inside the caller's transaction.
 */
export function addMissingColumns(
  conn: Connection,
  table: string,
  rows: readonly WriteRow[],
): string[] {
  const existing = new Set(liveColumns(conn, table).map((name) => name.toLowerCase()));
  const added = columnsOf(rows).filter((column) => !existing.has(column.toLowerCase()));
  for (const column of added) {
    const type = inferColumnType(columnValues(rows, column));
    conn.exec(`ALTER TABLE ${quoteName(table)} ADD COLUMN ${quoteName(column)} ${type}`);
  }
  return added;
}

/** One transaction with statements reused across rows; client mistakes become RowWriteError. */
export function write<T>(conn: Connection, body: (statements: Statements) => T): T {
  return clientErrors(() =>
    inTransaction(conn, () => {
      const statements = new Statements(conn);
      try {
        return body(statements);
      } finally {
        statements.close();
      }
    })
  );
}

/** Rows found by `keys` (one value list per row), in that order; `withRowid` adds `rowid`. */
function fetchRows(
  statements: Statements,
  table: string,
  keys: readonly string[],
  keyValues: readonly BindValue[][],
  withRowid: boolean,
): ReturnedRow[] {
  const where = keys.map((key) => `${quoteName(key)} = ?`).join(" AND ");
  const sql = `SELECT ${withRowid ? "rowid, " : ""}* FROM ${quoteName(table)} WHERE ${where}`;
  const rows: ReturnedRow[] = [];
  let columns: string[] | undefined;
  for (const values of keyValues) {
    const found = statements.all(sql, values);
    // Asked once it ran: a statement kept from an earlier write is compiled again (`*` with the
    // columns added since) when it runs, and before that still names the columns it had.
    const names = columns ??= statements.columns(sql);
    for (const row of found) {
      rows.push(Object.fromEntries(names.map((column, i) => [column, row[i]])));
    }
  }
  return rows;
}
