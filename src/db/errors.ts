/**
 * Errors raised by the data layer: `QueryInterrupted`, `MultipleValues`, and the errors for
 * writes that cannot happen.
 *
 * @module
 */

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
