/**
 * `Cursor`: the result of `Connection.execute()`, shaped like Python's `sqlite3.Cursor` for
 * plugin code written against Datasette.
 *
 * @module
 */

import type { SqlValue } from "./values.ts";

/** Python DB-API column description: the name followed by six `null`s. */
export type ColumnDescription = [string, null, null, null, null, null, null];

/** Rows of one executed statement, fetched eagerly. */
export class Cursor implements Iterable<SqlValue[]> {
  /** Every row, as arrays. */
  readonly rows: SqlValue[][];
  /** Result column names. */
  readonly columns: string[];
  /** Rows changed by an INSERT/UPDATE/DELETE/REPLACE, else -1 (as in Python). */
  readonly rowcount: number;
  /** `sqlite3_last_insert_rowid` after the statement. */
  readonly lastrowid: number | bigint;
  #position = 0;

  /** Wraps already-read rows; `Connection.execute()` builds these. */
  constructor(
    init: { rows: SqlValue[][]; columns: string[]; rowcount: number; lastrowid: number | bigint },
  ) {
    this.rows = init.rows;
    this.columns = init.columns;
    this.rowcount = init.rowcount;
    this.lastrowid = init.lastrowid;
  }

  /** Python's `cursor.description`, or null for statements without result columns. */
  get description(): ColumnDescription[] | null {
    if (this.columns.length === 0) return null;
    return this.columns.map((name) => [name, null, null, null, null, null, null]);
  }

  /** The next row, or null when there are no more. */
  fetchone(): SqlValue[] | null {
    return this.#position < this.rows.length ? this.rows[this.#position++] : null;
  }

  /** Up to `size` further rows. */
  fetchmany(size = 1): SqlValue[][] {
    const batch = this.rows.slice(this.#position, this.#position + size);
    this.#position += batch.length;
    return batch;
  }

  /** All rows not yet fetched. */
  fetchall(): SqlValue[][] {
    const rest = this.rows.slice(this.#position);
    this.#position = this.rows.length;
    return rest;
  }

  /** Iterates over the rows not yet fetched. */
  *[Symbol.iterator](): Iterator<SqlValue[]> {
    while (this.#position < this.rows.length) yield this.rows[this.#position++];
  }
}
