/**
 * `SqliteError` and the helper that turns a failing result code into one.
 *
 * @module
 */

import { readCString, sqlite } from "./ffi.ts";
import { StatusError, type StatusErrorOptions } from "../util/errors.ts";

/** Options of {@link SqliteError}: a layer above may say what the failure means to a client. */
export interface SqliteErrorOptions extends StatusErrorOptions {
  /** HTTP status; 500 unless the layer above knows better. */
  status?: number;
}

/**
 * An error reported by SQLite; `message` is exactly `sqlite3_errmsg`. Nobody has said yet whose
 * fault it is, so to a client it is a server error (500); the data layer wraps the failures of
 * its statements in `DatabaseError` (`src/db/errors.ts`), which knows the SQL.
 */
export class SqliteError extends StatusError {
  /** Primary result code, e.g. 1 SQLITE_ERROR, 9 SQLITE_INTERRUPT. */
  code: number;
  /** Extended result code, e.g. 2067 SQLITE_CONSTRAINT_UNIQUE. */
  extendedCode: number;

  /** Builds an error; `code` is derived from `extendedCode`'s low byte. */
  constructor(message: string, extendedCode: number, options: SqliteErrorOptions = {}) {
    super(options.status ?? 500, message, options);
    this.name = "SqliteError";
    this.extendedCode = extendedCode;
    this.code = extendedCode & 0xff;
  }
}

/** Error for result code `rc` on connection `db`, with the connection's current message. */
export function errorFor(db: Deno.PointerValue, rc: number): SqliteError {
  const lib = sqlite();
  const message = db === null
    ? readCString(lib.sqlite3_errstr(rc))
    : readCString(lib.sqlite3_errmsg(db));
  return new SqliteError(message ?? `SQLite error ${rc}`, rc);
}

/** Throws a {@link SqliteError} unless `rc` is SQLITE_OK. */
export function check(db: Deno.PointerValue, rc: number): void {
  if (rc !== 0) throw errorFor(db, rc);
}
