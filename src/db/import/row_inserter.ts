/**
 * The INSERT statements of an import and the rows waiting for them: a hundred rows a statement
 * where the table is narrow enough, one at a time for the rows left over and to find the row at
 * fault when a whole statement fails. Apart from importer.ts, which decides the table's columns
 * and types; this file only puts rows into the table it is given.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { Statement } from "../../sqlite/statement.ts";
import { SqliteError } from "../../sqlite/errors.ts";
import { addressOf, type BindValue } from "../../sqlite/values.ts";
import { quoteName } from "../write_values.ts";
import { ImportError } from "./import_error.ts";
import { rowError } from "./import_table.ts";
import type { EncodedRows } from "./encoded_rows.ts";

/**
 * Rows inserted by one statement (`INSERT … VALUES (…), (…), …`): one step, reset and clear for a
 * hundred rows instead of each, which took about a quarter off the insert. Capped so that a wide
 * table stays within 999 bound values, the smallest limit a SQLite build may have.
 */
const STATEMENT_ROWS = 100;
const MAX_VALUES = 999;

/** What the statements insert into, and what they do with a row whose key is taken. */
export interface InsertTarget {
  table: string;
  /** The columns, in the order rows give their values. */
  columns: readonly string[];
  /** The primary key's columns (an upsert needs them). */
  pks: readonly string[];
  replace?: boolean;
  upsert?: boolean;
  /** Per column: its reals are bound as numbers (a FLOAT column the import created). */
  realColumns: boolean[];
}

/** Prepared INSERT statements for one table shape and the rows waiting for them. */
export class RowInserter {
  readonly #conn: Connection;
  readonly #flagHints: boolean;
  /** Inserts one row: the rows left over after whole batches, and a failed batch's rows. */
  #statement: Statement | null = null;
  /** Inserts `#batchRows` rows at once. */
  #batch: Statement | null = null;
  #batchRows = 1;
  /** The values of the rows waiting for the next batch, one after the other, and their lines. */
  #pending: BindValue[] = [];
  #pendingLines: number[] = [];
  /** Per column: its reals are bound as numbers (a FLOAT column this import created). */
  #realColumns: boolean[] = [];
  /** The address of the text of the packed rows being inserted. */
  #address = 0n;
  /** Rows inserted so far. */
  rows = 0;

  /** Statements on `conn`; `flagHints` makes errors suggest `vitrine insert`'s flags. */
  constructor(conn: Connection, flagHints: boolean) {
    this.#conn = conn;
    this.#flagHints = flagHints;
  }

  /** Prepares the statements for `target` (after any earlier ones are finalized). */
  prepare(target: InsertTarget): void {
    this.finalize();
    const table = quoteName(target.table);
    const names = target.columns.map((column) => quoteName(column));
    const { replace, upsert, pks } = target;
    const into = `INSERT${replace ? " OR REPLACE" : ""} INTO ${table} (${names.join(", ")}) `;
    let conflict = "";
    if (upsert) {
      if (!pks.length) {
        throw new ImportError("--upsert needs a primary key: the table has none, give --pk");
      }
      const keys = new Set(pks.map((pk) => pk.toLowerCase()));
      const others = names.filter((_, i) => !keys.has(target.columns[i].toLowerCase()));
      conflict = ` ON CONFLICT (${pks.map(quoteName).join(", ")}) DO ` +
        (others.length
          ? `UPDATE SET ${others.map((name) => `${name} = excluded.${name}`).join(", ")}`
          : "NOTHING");
    }
    try {
      this.#statement = this.#conn.prepare(
        into + `VALUES (${names.map(() => "?").join(", ")})` + conflict,
      );
    } catch (error) {
      throw new ImportError((error as Error).message, { cause: error });
    }
    this.#realColumns = target.realColumns;
    this.#batchRows = Math.max(1, Math.min(STATEMENT_ROWS, Math.floor(MAX_VALUES / names.length)));
    const row = `(${names.map(() => "?").join(", ")})`;
    this.#batch = this.#batchRows > 1
      ? this.#conn.prepare(
        into + `VALUES ${Array(this.#batchRows).fill(row).join(", ")}` + conflict,
      )
      : null;
  }

  /** Finalizes the statements. */
  finalize(): void {
    this.#statement?.finalize();
    this.#batch?.finalize();
    this.#statement = this.#batch = null;
  }

  /** Queues a row's values (copied), read from `line`; a full batch is inserted at once. */
  add(row: readonly BindValue[], line: number): void {
    const pending = this.#pending;
    for (let i = 0; i < row.length; i++) pending.push(row[i]);
    this.#pendingLines.push(line);
    if (this.#pendingLines.length === this.#batchRows) this.flush();
  }

  /** Inserts the pending rows: a whole batch by one statement, others (or a failed batch) each. */
  flush(): void {
    const lines = this.#pendingLines;
    const count = lines.length;
    if (!count) return;
    const values = this.#pending;
    this.#pending = [];
    this.#pendingLines = [];
    // The columns do not change while rows wait: new ones flush the rows first.
    const width = values.length / count;
    if (this.#batch && count === this.#batchRows) {
      try {
        this.#batch.bind(values).step();
        this.rows += count;
        return;
      } catch (error) {
        // SQLite took back the failed statement's rows; row by row finds the one at fault and
        // names its line. Should it have ended the transaction, there is nothing to go on with.
        if (!(error instanceof SqliteError) || !this.#conn.inTransaction) {
          throw rowError(error, lines[0], this.#flagHints);
        }
      }
    }
    for (let i = 0; i < count; i++) {
      try {
        this.#statement!.bind(values.slice(i * width, (i + 1) * width)).step();
      } catch (error) {
        throw rowError(error, lines[i], this.#flagHints);
      }
      this.rows++;
    }
  }

  /** The packed rows whose ranges `insertRange` inserts next (their text's address is kept). */
  useText(rows: EncodedRows): void {
    this.#address = addressOf(rows.text);
  }

  /** Inserts packed rows `from` to `to` (not included) as `flush` inserts pending rows. */
  insertRange(rows: EncodedRows, from: number, to: number): void {
    const count = this.#batchRows;
    let r = from;
    for (; this.#batch && r + count <= to; r += count) {
      const batch = this.#batch;
      try {
        batch.bind();
        for (let j = 0; j < count; j++) this.#bindEncoded(batch, j * rows.width + 1, rows, r + j);
        batch.step();
        this.rows += count;
        continue;
      } catch (error) {
        if (!(error instanceof SqliteError) || !this.#conn.inTransaction) {
          throw rowError(error, rows.lines[r], this.#flagHints);
        }
      }
      this.#insertEach(rows, r, r + count);
    }
    this.#insertEach(rows, r, to);
  }

  #insertEach(rows: EncodedRows, from: number, to: number): void {
    const statement = this.#statement!;
    for (let r = from; r < to; r++) {
      try {
        statement.bind();
        this.#bindEncoded(statement, 1, rows, r);
        statement.step();
      } catch (error) {
        throw rowError(error, rows.lines[r], this.#flagHints);
      }
      this.rows++;
    }
  }

  /**
   * Binds row `r` of `rows` from parameter `first` on, after `bind()` set them all to NULL. Text
   * is bound as it is: a column's affinity turns an integer's text into the integer (exactly, as
   * `kindOfText` lets only 64-bit integers through) and a FLOAT column's into a real; a real in a
   * FLOAT column is bound as the number JavaScript read, whose rounding `Number` guarantees.
   */
  #bindEncoded(statement: Statement, first: number, rows: EncodedRows, r: number): void {
    const { width, kinds, starts, lengths, reals } = rows;
    const address = this.#address;
    const realColumns = this.#realColumns;
    for (let i = 0, k = r * width; i < width; i++, k++) {
      const length = lengths[k];
      if (length < 0) continue;
      if (kinds[k] === 2 && realColumns[i]) statement.bindAt(first + i, reals[k]);
      else statement.bindTextAt(first + i, address + BigInt(starts[k]), length);
    }
  }
}
