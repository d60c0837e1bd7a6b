/**
 * Vitrine's SQLite binding: FFI over the system libsqlite3 (`libsqlite3.so.0`, or the path in
 * `VITRINE_SQLITE_LIB`). Usable without the rest of Vitrine.
 *
 * ```ts
 * import { Connection } from "./mod.ts";
 * const conn = Connection.open(":memory:");
 * conn.query("select 1 as one").rows; // [[1]]
 * conn.close();
 * ```
 *
 * @module
 */

export {
  Connection,
  isInterrupted,
  type OpenOptions,
  type QueryResult,
  type RunResult,
} from "./connection.ts";
export { type ColumnDescription, Cursor } from "./cursor.ts";
export { SqliteError } from "./errors.ts";
export type {
  AggregateClass,
  AggregateInstance,
  CollationFunction,
  ScalarFunction,
} from "./functions.ts";
export { Statement } from "./statement.ts";
export type { BindParams, BindValue, SqlValue } from "./values.ts";
export { compileOptions, sqliteVersion } from "./version.ts";
