/**
 * Several rows updated or deleted in one transaction, for the bulk endpoints and the table
 * page's selection: every row is found by its key and written with the single-row functions of
 * `row_writes.ts` (so the same checks apply), and the first row that fails undoes them all, its
 * error naming the row by its key.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { deleteRow, type KeyedTable, type ReturnedRow, updateRow, write } from "./row_writes.ts";
import { bindable, quoteName, RowWriteError, type WriteRow } from "./write_values.ts";

/** What {@link updateRows} did: how many rows, and the rows afterwards when asked. */
export interface BulkUpdateResult {
  /** Rows changed. */
  count: number;
  /** The rows afterwards, or null when they were not asked for. */
  rows: ReturnedRow[] | null;
}

/**
 * Sets the columns of `update` on every row of `keyList` (one value list per row, in the order
 * of the table's key columns or `rowid`). A missing row, or one the update cannot be applied to,
 * fails the whole call and no row changes.
 */
export function updateRows(
  conn: Connection,
  target: KeyedTable,
  keyList: readonly (readonly unknown[])[],
  update: WriteRow,
  options: { returning?: boolean } = {},
): BulkUpdateResult {
  return write(conn, (statements) => {
    const exists = existsQuery(target);
    const rows: ReturnedRow[] = [];
    for (const key of keyList) {
      eachRow(target, key, () => {
        if (!statements.all(exists, key.map(bindable)).length) {
          throw new RowWriteError("record not found");
        }
        const row = updateRow(conn, target, key, update, { returning: options.returning });
        if (row) rows.push(row);
      });
    }
    return { count: keyList.length, rows: options.returning ? rows : null };
  });
}

/** Deletes every row of `keyList`; all of them or, when one cannot go, none. Returns the count. */
export function deleteRows(
  conn: Connection,
  target: KeyedTable,
  keyList: readonly (readonly unknown[])[],
): number {
  return write(conn, () => {
    let count = 0;
    for (const key of keyList) {
      eachRow(target, key, () => {
        const deleted = deleteRow(conn, target, key);
        if (deleted === 0) throw new RowWriteError("record not found");
        count += deleted;
      });
    }
    return count;
  });
}

/** The key columns rows are found by: the declared primary key, or `rowid`. */
export function keyColumns(target: KeyedTable): string[] {
  return target.pks.length ? [...target.pks] : ["rowid"];
}

/** "id=17", "order_id=A/1001, product_id=5": how an error names a row. */
export function keyText(target: KeyedTable, key: readonly unknown[]): string {
  return keyColumns(target).map((column, i) => `${column}=${String(key[i])}`).join(", ");
}

function existsQuery(target: KeyedTable): string {
  const where = keyColumns(target).map((key) => `${quoteName(key)} = ?`).join(" AND ");
  return `SELECT 1 FROM ${quoteName(target.table)} WHERE ${where}`;
}

/** Runs one row's write; its error, if any, is re-raised naming the row. */
function eachRow(target: KeyedTable, key: readonly unknown[], body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!(error instanceof RowWriteError)) throw error;
    throw new RowWriteError(`Row ${keyText(target, key)}: ${error.message}`, { cause: error });
  }
}
