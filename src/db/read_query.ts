/**
 * Running one read query on a connection: deadline, row cap, error shape, and (for JSON pages)
 * the rows written as JSON where they are read. The same code runs inside the workers and on the
 * main thread (`num_sql_threads` 0, private memory databases).
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { SQLITE_INTERRUPT } from "../sqlite/constants.ts";
import { SqliteError } from "../sqlite/errors.ts";
import { type SqlLimits, VISITOR_LIMITS } from "../sqlite/guard.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";
import { rowsJson, type RowsJsonOptions } from "../util/json_rows.ts";
import { textRows, type TextRowsOptions } from "../util/text_rows.ts";

/** Rows of a JSON page to write as JSON text next to the values (see `util/json_rows.ts`). */
export interface RowsJsonRequest extends RowsJsonOptions {
  /** The page size: rows beyond it (the look-ahead row) are not written. */
  limit: number;
}

/** One read query, as sent to a worker. */
export interface ReadRequest {
  sql: string;
  params: BindParams | null;
  /** Return at most this many rows and report `truncated`; null for all rows. */
  maxRows: number | null;
  /** Milliseconds the query may run once started (`custom_time_limit`); null for no limit. */
  timeLimitMs: number | null;
  /**
   * When to give up on the query, waiting or running, on the {@link wallClock}: the request's
   * arrival plus `sql_time_limit_ms`. Null for no limit.
   */
  deadline: number | null;
  /** Also write the rows as JSON (a JSON page whose body can use them as they are). */
  json?: RowsJsonRequest | null;
  /** Or as the lines of a CSV, TSV or NDJSON export (`_stream=on`). */
  text?: TextRowsOptions | null;
  /**
   * Most bytes of text and BLOB values the query may produce (SQLite's length limit for any one
   * value, and the total of the rows returned); null for no limit.
   */
  maxBytes?: number | null;
  /** SQL the owner wrote (a canned query): it may read any pragma (`ExecuteOptions.owner_sql`). */
  owner?: boolean;
}

/** SQLite's own default length limit (1,000,000,000 bytes), used when no cap is asked for. */
const SQLITE_MAX_LENGTH = 1_000_000_000;

/** Rows of a read query. */
export interface ReadResult {
  columns: string[];
  rows: SqlValue[][];
  truncated: boolean;
  /** Columns whose numbers were all stored as REAL: whole ones are written `12.0`. */
  real_columns?: number[];
}

/** {@link ReadRequest.json}'s answer: UTF-8 JSON of the first `limit` rows, and the row at `limit - 1`. */
export interface EncodedPage {
  bytes: Uint8Array;
  edge: SqlValue[] | null;
}

/**
/**
 * Milliseconds on a clock every thread shares (each worker has its own `performance.timeOrigin`,
 * so `performance.now()` alone differs between threads).
 */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Runs `request` on `conn` until its deadline, under SQLite's visitor limits and authorizer, and
 * the byte cap; all of them are removed afterwards. Every `db.execute()` query runs this way,
 * since that is where visitor SQL (custom queries, `_where=`, filter values) ends up.
 */
export function runRead(conn: Connection, request: ReadRequest): ReadResult {
  let remaining = request.timeLimitMs && request.timeLimitMs > 0 ? request.timeLimitMs : Infinity;
  if (request.deadline !== null) remaining = Math.min(remaining, request.deadline - wallClock());
  // Out of time before starting: fail like an interrupted query, without running it.
  if (remaining <= 0) throw interruptedError();
  const limited = remaining !== Infinity;
  const maxBytes = request.maxBytes ? request.maxBytes : Infinity;
  const limits = visitorLimits(maxBytes);
  if (limited) conn.setDeadline(remaining);
  try {
    const options = { maxRows: request.maxRows ?? Infinity, maxBytes };
    return conn.restricted(
      () => conn.query(request.sql, request.params ?? undefined, options),
      limits,
      request.owner === true,
    );
  } finally {
    if (limited) conn.setDeadline(null);
  }
}

/**
 * SQLite's limits for visitor SQL, with the byte cap as the longest value. The same object for
 * the same cap, so `Connection.restricted` sees at once that they are applied already.
 */
export function visitorLimits(maxBytes: number): Readonly<SqlLimits> {
  let limits = limitsByCap.get(maxBytes);
  if (!limits) {
    // Caps come from settings and `max_returned_bytes`: a handful; bounded all the same.
    if (limitsByCap.size >= 16) limitsByCap.clear();
    limits = Object.freeze({ ...VISITOR_LIMITS, length: Math.min(maxBytes, SQLITE_MAX_LENGTH) });
    limitsByCap.set(maxBytes, limits);
  }
  return limits;
}

const limitsByCap = new Map<number, Readonly<SqlLimits>>();

/** {@link ReadRequest.json}'s bytes for a result, or null when none were asked for. */
export function encodePage(request: ReadRequest, result: ReadResult): EncodedPage | null {
  const options = request.json ?? request.text;
  if (!options) return null;
  // REAL by declaration (the view's) or by what the rows held (a query's expressions).
  const real = withRealColumns(options.real, result.real_columns);
  const text = request.json
    ? rowsJson(result.columns, result.rows, { ...request.json, real })
    : textRows(result.columns, result.rows, { ...request.text!, real });
  // An export page with a BLOB cell is written by the main thread (its text is a URL there).
  if (text === null) return null;
  const limit = options.limit;
  const edge = result.rows.length > limit && limit > 0 ? result.rows[limit - 1] : null;
  return { bytes: new TextEncoder().encode(text), edge };
}

/** The REAL column indexes `declared` with those of `stored` added (no duplicates). */
export function withRealColumns(declared: number[] = [], stored: number[] = []): number[] {
  if (stored.length === 0) return declared;
  return [...new Set([...declared, ...stored])];
}

/** SQLite's own error for a query stopped by its deadline (SQLITE_INTERRUPT). */
export function interruptedError(): SqliteError {
  return new SqliteError("interrupted", SQLITE_INTERRUPT);
}

/** An error that crossed from a worker: SQLite's message and codes, or a JS error's name. */
export interface SerializedError {
  name: string;
  message: string;
  code?: number;
  extendedCode?: number;
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
