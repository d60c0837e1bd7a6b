/**
 * What runs inside one transaction of a PostgreSQL database: the read-only transaction under a
 * time limit (the server's `statement_timeout`, and a cancel request of Vitrine's a moment
 * later or when the caller goes away), the traced statement runner, the `PgConnection` plugin
 * code gets, a read's rows as `Results`, and the driver's errors as the data layer's. Apart from
 * `PostgresDatabase`, which decides which of them each call of the spec's API needs.
 *
 * @module
 */

import { SqliteError } from "../sqlite/errors.ts";
import type { BindParams } from "../sqlite/values.ts";
import { traceClock, traceSql } from "../util/trace.ts";
import { QueryError, QueryInterrupted } from "./errors.ts";
import { type PgColumn, PgConnection, type PgRun } from "./postgres_connection.ts";
import { makeRows, Results } from "./results.ts";
import { maskSecret } from "./postgres_url.ts";
import { pgArrayColumns, pgArraysInPlace, pgCell, pgRealColumns } from "./postgres_values.ts";
import { ONE_STATEMENT, type PendingQuery, type Sql } from "./postgres_client.ts";

/** SQLSTATE `query_canceled`: statement_timeout or a cancel request. */
const QUERY_CANCELED = "57014";
/** SQLite's SQLITE_ERROR, the code the data layer's `QueryError` carries for server errors. */
const GENERIC_ERROR = 1;
/**
 * SQLite's SQLITE_MISMATCH, what a PostgreSQL data exception (SQLSTATE class 22: "abc" bound to
 * an int, a date that is none) becomes: a value that does not fit its column's type.
 */
const DATA_MISMATCH = 20;
/** Time after the server's own limit before Vitrine sends a cancel request itself. */
const CANCEL_GRACE_MS = 50;

/** Hands a started query to the read's time limit, which may cancel it; returns it. */
export type Track = (q: PendingQuery) => PendingQuery;

/** Turns a driver error into the data layer's, with `password` masked wherever it appears. */
export function pgError(
  error: unknown,
  sql: string,
  params: BindParams | null | undefined,
  password: string | null,
): Error {
  if (error instanceof QueryInterrupted || error instanceof QueryError) return error;
  const code = (error as { code?: string }).code;
  const raw = error instanceof Error ? error.message : String(error);
  const message = maskSecret(raw, password);
  if (code === QUERY_CANCELED) {
    return new QueryInterrupted(sql, params ?? null, undefined, { cause: error });
  }
  const kind = code?.startsWith("22") ? DATA_MISMATCH : GENERIC_ERROR;
  return new QueryError(sql, params ?? null, new SqliteError(message, kind));
}

/**
 * Runs `body` in a read-only transaction of `client`'s pool limited to `budget` ms: the server's
 * statement_timeout, and a cancel request of ours a moment later or when `signal` aborts.
 */
export async function readOnly<T>(
  client: () => Promise<Sql>,
  budget: number | null,
  signal: AbortSignal | undefined,
  body: (tx: Sql, track: Track) => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  let current: PendingQuery = null;
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    current?.cancel();
  };
  const timer = budget === null ? null : setTimeout(cancel, budget + CANCEL_GRACE_MS);
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await (await client()).begin("read only", async (tx) => {
      if (cancelled) throw Object.assign(new Error("cancelled"), { code: QUERY_CANCELED });
      // Sent ahead of the query on the same connection, not awaited first: the server runs
      // them in order, and the page saves a round trip.
      const limited = budget === null
        ? null
        : tx.unsafe(`set local statement_timeout = ${Math.ceil(budget)}`);
      limited?.catch(() => {}); // a failure fails the query after it too
      const result = await body(tx as unknown as Sql, (q) => {
        current = q;
        if (cancelled) q.cancel();
        return q;
      });
      await limited;
      return result;
    }) as T;
  } finally {
    if (timer !== null) clearTimeout(timer);
    signal?.removeEventListener("abort", cancel);
  }
}

/**
 * Runs statements on `tx`, traced under `database`'s name; `track` lets a read's time limit
 * cancel them.
 */
export function pgRunner(
  tx: Sql,
  track: Track | null,
  database: string,
): PgRun {
  return async (text, values) => {
    const start = traceClock();
    try {
      let query = tx.unsafe(text, values as never[], ONE_STATEMENT).values();
      if (track) query = track(query);
      const rows = await query;
      const { count, command } = rows as { count?: number; command?: string };
      // Read as lists, so that columns of the same name (catalog queries') all come back.
      const cells = (rows as unknown as unknown[][]).map((row) => row.map(pgCell));
      const columns: PgColumn[] = (rows.columns ?? []).map((
        c: { name: string; type: number },
      ) => ({ name: c.name, type: c.type }));
      return {
        rows: cells.map((row) =>
          Object.fromEntries(columns.map((column, i) => [column.name, row[i]]))
        ),
        values: cells,
        columns,
        count: Number(count ?? 0),
        command: command ?? "",
      };
    } finally {
      traceSql({ database, sql: text, params: null, start, end: traceClock() });
    }
  };
}

/**
 * `use(conn)` with the connection plugin code gets for one transaction
 * (`postgres_connection.ts`): the statements it started and did not await are waited for before
 * the transaction ends, and the connection refuses any use after. `fail` maps driver errors.
 */
export async function withPgConnection<T>(
  run: PgRun,
  readOnly: boolean,
  fail: (error: unknown, sql: string, params: BindParams | null | undefined) => Error,
  use: (conn: PgConnection) => T | Promise<T>,
): Promise<T> {
  const conn = new PgConnection(run, { readOnly, fail });
  try {
    const result = await use(conn);
    await conn.settle();
    return result;
  } finally {
    conn.close();
  }
}

/** The names of the driver's column descriptions. */
export function columnNames(columns: readonly { name: string }[] | undefined): string[] {
  return (columns ?? []).map((column) => column.name);
}

/** A read's rows as `Results`; `described`: the driver's column descriptions (names, types). */
export function resultsOf(
  rows: unknown,
  described: readonly { name: string; type?: number; parser?: { array?: boolean } }[] | undefined,
  truncated: boolean,
): Results {
  const columns = columnNames(described);
  const arrays = pgArrayColumns(described);
  const values = (rows as unknown[][]).map((row) => pgArraysInPlace(row, arrays));
  return new Results(makeRows(columns, values), columns, truncated, pgRealColumns(described));
}
