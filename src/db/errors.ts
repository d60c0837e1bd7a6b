/**
 * Errors raised by the data layer: `QueryInterrupted`, `MultipleValues`, and the errors for
 * writes that cannot happen.
 *
 * @module
 */

import { SqliteError } from "../sqlite/errors.ts";
import type { BindParams } from "../sqlite/values.ts";

/** A query ran past its time limit (`sql_time_limit_ms` or a lower `custom_time_limit`). */
export class QueryInterrupted extends Error {
  /** The SQL that was interrupted. */
  sql: string;
  /** The parameters it was run with. */
  params: BindParams | null;

  /** Builds the error for `sql` with `params`. */
  constructor(sql: string, params: BindParams | null | undefined, message = "interrupted") {
    super(message);
    this.name = "QueryInterrupted";
    this.sql = sql;
    this.params = params ?? null;
  }
}

/** `single_value()` was called on results that are not exactly one row of one column. */
export class MultipleValues extends Error {
  /** Builds the error with an explanatory message. */
  constructor(message = "Expected a single row with a single column") {
    super(message);
    this.name = "MultipleValues";
  }
}

/** A write was attempted on an immutable (or otherwise read-only) database. */
export class DatabaseNotMutable extends Error {
  /** Builds the error naming the database. */
  constructor(databaseName: string) {
    super(`Cannot write to database "${databaseName}": it is not mutable`);
    this.name = "DatabaseNotMutable";
  }
}

/**
 * The previous `execute_write_fn` function returned without committing. SQLite itself would say
 * the same thing to another connection, so the message is SQLite's.
 */
export class WriteLockError extends Error {
  /** Builds the error with SQLite's message. */
  constructor() {
    super("database table is locked");
    this.name = "WriteLockError";
  }
}

/** True when `error` is SQLite's "interrupted" (SQLITE_INTERRUPT, code 9). */
export function isInterruptError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 9 || error.message === "interrupted";
}

/**
 * A query hit a resource cap: its result holds more text and BLOB bytes than `max_returned_bytes`,
 * its SQL is longer than SQLite's visitor limit, or SQLite's heap reached `sqlite_heap_limit_mb`.
 * A `SqliteError`, so the views answer it with a 400 like any other bad query.
 */
export class QueryTooLarge extends SqliteError {
  /** Builds the error with a message saying which cap was hit. */
  constructor(message: string, extendedCode: number) {
    super(message, extendedCode);
    this.name = "QueryTooLarge";
  }
}

const SQLITE_NOMEM = 7;
const SQLITE_TOOBIG = 18;

/**
 * The caps' errors in words a visitor can act on; `null` for any other error. `maxBytes` is the
 * `max_returned_bytes` setting in force.
 */
export function describeCapError(error: unknown, maxBytes: number): QueryTooLarge | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (code === SQLITE_TOOBIG) {
    if (/statement too long/i.test(error.message)) {
      return new QueryTooLarge(
        "The SQL is too long: visitor SQL may be at most 100,000 bytes.",
        SQLITE_TOOBIG,
      );
    }
    const limit = maxBytes > 0 ? ` (${maxBytes.toLocaleString("en-US")} bytes)` : "";
    return new QueryTooLarge(
      `The query returns more data than this server allows${limit}. The limit is controlled ` +
        "by the max_returned_bytes setting.",
      SQLITE_TOOBIG,
    );
  }
  if (code === SQLITE_NOMEM) {
    return new QueryTooLarge(
      "The query needs more memory than this server allows. The limit is controlled by the " +
        "sqlite_heap_limit_mb setting.",
      SQLITE_NOMEM,
    );
  }
  return null;
}
