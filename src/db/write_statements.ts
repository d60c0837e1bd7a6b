/**
 * A batch of write SQL (`POST /<db>/-/execute-write`) run statement by statement on the write
 * connection, inside the transaction the caller opened. SQLite itself splits the batch: each
 * statement is compiled with a tail pointer to the rest, so a `;` inside a string, a comment or
 * a trigger body never cuts a statement in two. A statement that fails is reported by its
 * number and text; the caller's transaction then rolls back everything the batch did.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { BindParams } from "../sqlite/values.ts";
import { SqliteError } from "../sqlite/errors.ts";
import { needsOwnTransaction } from "./write_ops.ts";
import { RowWriteError } from "./write_values.ts";

/** Named parameters of a batch: name (without `:`) → value. */
export type BatchParams = BindParams;

/** What one statement of the batch did. */
export interface StatementResult {
  /** The statement's text, as written (trimmed). */
  sql: string;
  /** Rows it inserted, changed or deleted (0 for schema changes). */
  rowcount: number;
}

/** What the whole batch did. */
export interface BatchResult {
  /** Each statement run, in order. */
  statements: StatementResult[];
  /** Rows changed by all statements together. */
  rowcount: number;
  /** Rowid of the last row inserted, or null when the batch inserted none. */
  last_row_id: number | bigint | null;
  /** Column names of the returned rows. */
  columns: string[];
  /** Rows returned (`RETURNING`), at most `maxRows`, from the statements that returned rows. */
  rows: unknown[][];
  /** True when more rows were returned than `rows` holds. */
  truncated: boolean;
}

/** Why a batch of statements that only read is refused. */
export const NOTHING_WRITTEN =
  "None of these statements writes: use the query page (/<database>/-/query) for read-only SQL";

/** A statement of the batch that failed, named by its number (from 1) and text. */
export class StatementError extends RowWriteError {
  override name = "StatementError";
  /** Its number in the batch, from 1. */
  readonly number: number;
  /** Its text. */
  readonly sql: string;

  /** `message` is SQLite's (or ours); the statement is added in front of it. */
  constructor(number: number, sql: string, message: string, options: ErrorOptions = {}) {
    super(`Statement ${number} failed: ${message} (in: ${shortened(sql)})`, options);
    this.number = number;
    this.sql = sql;
  }
}

function shortened(sql: string): string {
  const oneLine = sql.replace(/\s+/g, " ");
  return oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine;
}

/**
 * Runs every statement of `sql` in order, binding the named `params` each one uses. Refuses
 * statements that manage transactions themselves (BEGIN, COMMIT, SAVEPOINT, VACUUM, ATTACH,
 * PRAGMA…), since the batch is one transaction, and a batch that writes nothing. Throws
 * {@link StatementError} on the first failure.
 */
export function runStatements(
  conn: Connection,
  sql: string,
  params: BatchParams | undefined,
  { maxRows = 10 }: { maxRows?: number } = {},
): BatchResult {
  const result: BatchResult = {
    statements: [],
    rowcount: 0,
    last_row_id: null,
    columns: [],
    rows: [],
    truncated: false,
  };
  let rest = sql;
  let wrote = false;
  const rowidBefore = conn.lastInsertRowid;
  while (/\S/.test(rest)) {
    const number = result.statements.length + 1;
    let statement;
    try {
      statement = conn.prepare(rest);
    } catch (error) {
      throw failure(number, rest, error);
    }
    const text = rest.slice(0, rest.length - statement.tail.length).trim();
    rest = statement.tail;
    try {
      if (statement.pointer === null) continue; // only comments or `;` left
      if (needsOwnTransaction(text)) {
        throw new StatementError(
          number,
          text,
          "transaction control, PRAGMA, VACUUM and ATTACH cannot run inside the batch's transaction",
        );
      }
      wrote ||= !statement.readonly;
      statement.bind(params);
      const before = conn.totalChanges;
      const columns = statement.columns();
      while (statement.step()) {
        if (result.rows.length >= maxRows) {
          result.truncated = true;
          continue;
        }
        if (!result.rows.length) result.columns = columns;
        result.rows.push(statement.values());
      }
      // changes() is the last INSERT/UPDATE/DELETE's count (not its triggers'), but a CREATE or
      // DROP leaves it as it was: a statement that changed nothing at all counts 0.
      const rowcount = conn.totalChanges === before ? 0 : conn.changes;
      result.statements.push({ sql: text, rowcount });
      result.rowcount += rowcount;
    } catch (error) {
      throw failure(number, text, error);
    } finally {
      statement.finalize();
    }
  }
  if (!result.statements.length) throw new RowWriteError("No SQL to run");
  if (!wrote) {
    throw new RowWriteError(NOTHING_WRITTEN);
  }
  const rowid = conn.lastInsertRowid;
  result.last_row_id = rowid === rowidBefore ? null : rowid;
  return result;
}

function failure(number: number, sql: string, error: unknown): unknown {
  if (error instanceof StatementError) return error;
  if (error instanceof SqliteError || error instanceof RangeError) {
    return new StatementError(number, sql.trim(), error.message, { cause: error });
  }
  return error;
}
