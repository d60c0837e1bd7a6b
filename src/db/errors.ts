/**
 * Errors raised by the data layer. Every SQL statement that fails in `Database` rejects with a
 * `DatabaseError`: `QueryError` when SQLite refused or failed it (500 unless a view that ran the
 * user's SQL turns it into `InvalidSql`, 400), `QueryInterrupted` when it ran past its time limit
 * or was cancelled (400), `QueryTooLarge` when it hit a resource cap (400). They wrap the
 * binding's `SqliteError` (they extend it and keep it as `cause`), carry the SQL and its
 * parameters, and — like every error with a status — extend `StatusError`, so
 * `src/app/error_response.ts` answers them without help.
 *
 * Also here: `MultipleValues` and the errors for writes that cannot happen.
 *
 * @module
 */

import { SqliteError, type SqliteErrorOptions } from "../sqlite/errors.ts";
import type { BindParams } from "../sqlite/values.ts";

const SQLITE_INTERRUPT = 9;

/** The base of the data layer's SQL failures; catch it to catch them all. */
export class DatabaseError extends SqliteError {
  /** Always `DatabaseError`. */
  override name = "DatabaseError";
  /** The SQL that failed. */
  sql: string;
  /** The parameters it was run with. */
  params: BindParams | BindParams[] | null;

  /** Builds the error for `sql` with `params`; `extendedCode` is SQLite's result code. */
  constructor(
    sql: string,
    params: BindParams | BindParams[] | null | undefined,
    message: string,
    extendedCode: number,
    options: SqliteErrorOptions = {},
  ) {
    super(message, extendedCode, options);
    this.sql = sql;
    this.params = params ?? null;
  }
}

/**
 * Primary result codes that say the file or the machine failed, not the SQL: SQLITE_NOMEM (7),
 * SQLITE_IOERR (10), SQLITE_CORRUPT (11), SQLITE_FULL (13), SQLITE_CANTOPEN (14), SQLITE_NOTADB
 * (26).
 */
const STORAGE_FAILURES = new Set([7, 10, 11, 13, 14, 26]);

/** SQLite refused or failed a statement (syntax, missing table, constraint, read-only, …). */
export class QueryError extends DatabaseError {
  override name = "QueryError";

  /**
   * True when the file or the machine failed (a disk I/O error, a corrupt or replaced file, a
   * full disk): a server error whoever wrote the SQL, never the visitor's "Invalid SQL".
   */
  get storage_failure(): boolean {
    return STORAGE_FAILURES.has(this.code);
  }

  /** Wraps `cause` (a `SqliteError`) raised while running `sql`; the message stays SQLite's. */
  constructor(
    sql: string,
    params: BindParams | BindParams[] | null | undefined,
    cause: SqliteError,
  ) {
    super(sql, params, cause.message, cause.extendedCode, { cause });
  }
}

const INTERRUPTED_MESSAGE =
  "SQL query took too long. The time limit is controlled by the sql_time_limit_ms setting.";

/**
 * A query ran past its time limit (`sql_time_limit_ms` or a lower `custom_time_limit`), or was
 * cancelled: 400, title "SQL Interrupted".
 */
export class QueryInterrupted extends DatabaseError {
  /** Always `QueryInterrupted`. */
  override name = "QueryInterrupted";

  /** Builds the error for `sql` with `params`. */
  constructor(
    sql: string,
    params: BindParams | null | undefined,
    message = INTERRUPTED_MESSAGE,
    options: ErrorOptions = {},
  ) {
    super(sql, params, message, SQLITE_INTERRUPT, {
      status: 400,
      title: "SQL Interrupted",
      cause: options.cause,
    });
  }
}

/**
 * `error` as the data layer reports it: a `SqliteError` from running `sql` becomes a
 * `QueryError` (an interrupt a `QueryInterrupted`); anything else is returned as it is.
 */
export function asDatabaseError(
  error: unknown,
  sql: string,
  params: BindParams | BindParams[] | null | undefined,
): unknown {
  if (error instanceof DatabaseError) return error;
  if (isInterruptError(error)) {
    return new QueryInterrupted(sql, params as BindParams | null, undefined, { cause: error });
  }
  if (error instanceof SqliteError) return new QueryError(sql, params, error);
  return error;
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
  return code === SQLITE_INTERRUPT || error.message === "interrupted";
}

/**
 * A query hit a resource cap: its result holds more text and BLOB bytes than `max_returned_bytes`,
 * its SQL is longer than SQLite's visitor limit, or SQLite's heap reached `sqlite_heap_limit_mb`.
 * A 400: the visitor can ask for less.
 */
export class QueryTooLarge extends DatabaseError {
  override name = "QueryTooLarge";

  /** Builds the error for `sql` with a message saying which cap was hit. */
  constructor(
    sql: string,
    params: BindParams | BindParams[] | null | undefined,
    message: string,
    extendedCode: number,
    options: ErrorOptions = {},
  ) {
    super(sql, params, message, extendedCode, { status: 400, cause: options.cause });
  }
}

const SQLITE_NOMEM = 7;
const SQLITE_TOOBIG = 18;

/**
 * The caps' errors in words a visitor can act on, for `sql` run with `params`; `null` for any
 * other error. `maxBytes` is the `max_returned_bytes` setting in force.
 */
export function describeCapError(
  error: unknown,
  maxBytes: number,
  sql: string,
  params: BindParams | null | undefined,
): QueryTooLarge | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  const tooLarge = (message: string, extendedCode: number) =>
    new QueryTooLarge(sql, params, message, extendedCode, { cause: error });
  if (code === SQLITE_TOOBIG) {
    if (/statement too long/i.test(error.message)) {
      return tooLarge(
        "The SQL is too long: visitor SQL may be at most 100,000 bytes.",
        SQLITE_TOOBIG,
      );
    }
    const limit = maxBytes > 0 ? ` (${maxBytes.toLocaleString("en-US")} bytes)` : "";
    return tooLarge(
      `The query returns more data than this server allows${limit}. The limit is controlled ` +
        "by the max_returned_bytes setting.",
      SQLITE_TOOBIG,
    );
  }
  if (code === SQLITE_NOMEM) {
    return tooLarge(
      "The query needs more memory than this server allows. The limit is controlled by the " +
        "sqlite_heap_limit_mb setting.",
      SQLITE_NOMEM,
    );
  }
  return null;
}
