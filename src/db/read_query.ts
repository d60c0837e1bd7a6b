/**
 * Running one read query on a connection: time limit, row cap, error shape. The same code runs
 * inside the workers and on the main thread (`num_sql_threads` 0, private memory databases).
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";

/** One read query, as sent to a worker. */
export interface ReadRequest {
  sql: string;
  params: BindParams | null;
  /** Return at most this many rows and report `truncated`; null for all rows. */
  maxRows: number | null;
  /** Milliseconds before the query is interrupted; null or 0 for no limit. */
  timeLimitMs: number | null;
}

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

/** Runs `request` on `conn` under its deadline; the deadline is always removed afterwards. */
export function runRead(conn: Connection, request: ReadRequest): ReadResult {
  const limited = request.timeLimitMs !== null && request.timeLimitMs > 0;
  if (limited) conn.setDeadline(request.timeLimitMs);
  try {
    const options = request.maxRows === null ? {} : { maxRows: request.maxRows };
    return conn.query(request.sql, request.params ?? undefined, options);
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
