/**
 * Running one read query on a connection: time limit, row cap, error shape. The same code runs
 * inside the workers and on the main thread (`num_sql_threads` 0, private memory databases).
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { VISITOR_LIMITS } from "../sqlite/guard.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";

/** One read query, as sent to a worker. */
export interface ReadRequest {
  sql: string;
  params: BindParams | null;
  /** Return at most this many rows and report `truncated`; null for all rows. */
  maxRows: number | null;
  /** Milliseconds before the query is interrupted; null or 0 for no limit. */
  timeLimitMs: number | null;
  /**
   * Most bytes of text and BLOB values the query may produce (SQLite's length limit for any one
   * value, and the total of the rows returned); null for no limit.
   */
  maxBytes?: number | null;
}

/** SQLite's own default length limit (1,000,000,000 bytes), used when no cap is asked for. */
const SQLITE_MAX_LENGTH = 1_000_000_000;

/** Rows of a read query. */
export interface ReadResult {
  columns: string[];
  rows: SqlValue[][];
  truncated: boolean;
}

/** An error that crossed from a worker: SQLite's message and codes, or a JS error's name. */
export interface SerializedError {
  name: string;
  message: string;
  code?: number;
  extendedCode?: number;
}

/**
 * Runs `request` on `conn` under its deadline, SQLite's visitor limits and authorizer, and the
 * byte cap; all of them are removed afterwards. Every `db.execute()` query runs this way, since
 * that is where visitor SQL (custom queries, `_where=`, filter values) ends up.
 */
export function runRead(conn: Connection, request: ReadRequest): ReadResult {
  const limited = request.timeLimitMs !== null && request.timeLimitMs > 0;
  const maxBytes = request.maxBytes ? request.maxBytes : Infinity;
  const limits = { ...VISITOR_LIMITS, length: Math.min(maxBytes, SQLITE_MAX_LENGTH) };
  if (limited) conn.setDeadline(request.timeLimitMs);
  try {
    const options = { maxRows: request.maxRows ?? Infinity, maxBytes };
    return conn.restricted(
      () => conn.query(request.sql, request.params ?? undefined, options),
      limits,
    );
  } finally {
    if (limited) conn.setDeadline(null);
  }
}

/** Keeps what is needed to rebuild `error` on the other side of a worker boundary. */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const { code, extendedCode } = error as { code?: unknown; extendedCode?: unknown };
  return {
    name: error.name,
    message: error.message,
    code: typeof code === "number" ? code : undefined,
    extendedCode: typeof extendedCode === "number" ? extendedCode : undefined,
  };
}
