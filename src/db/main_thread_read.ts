/**
 * Reads run on the main thread instead of a worker: every read when there are no workers
 * (`num_sql_threads` 0, a private `:memory:` database), and a tiny query whose worker round trip
 * would cost more than the query itself. Apart from `Database`, which decides where a read goes;
 * this file only runs it here.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { threadCpuMs } from "../util/thread_clock.ts";
import { isInterruptError } from "./errors.ts";
import type { QueryCosts } from "./query_costs.ts";
import { type ReadRequest, runRead, wallClock } from "./read_query.ts";
import { Results } from "./results.ts";

/**
 * The most a tiny query may hold up the main thread before it is moved to a worker (above the
 * 20 ms under which `setDeadline` checks the clock at every SQLite opcode).
 */
const INLINE_LIMIT_MS = 25;

/** What `openReadConnection` gives readers of mutable files (restored after a tiny query). */
export const READER_BUSY_TIMEOUT_MS = 1000;
/** SQLite's "database is locked". */
const SQLITE_BUSY = 5;

/**
 * Runs `request` on `conn`, synchronously on this thread; the deadline still stops runaway
 * queries, and a signal can only cancel it before it starts. The JSON page is written by the
 * view itself.
 */
export async function readOnThisThread(
  conn: () => Connection,
  request: ReadRequest,
  signal?: AbortSignal,
): Promise<Results> {
  await Promise.resolve();
  signal?.throwIfAborted();
  const result = runRead(conn(), request);
  return new Results(result.rows, result.columns, result.truncated, result.real_columns);
}

/**
 * Runs a tiny query (by its past runs) on this thread: a worker's round trip costs more than
 * the query. It may run for {@link INLINE_LIMIT_MS} at most; one that turns out slower is
 * interrupted and left to a worker (returns null), and its cost is remembered in `costs`.
 * `waits`: the file is mutable, so another process may lock it for a moment.
 */
export async function readTinyInline(
  conn: () => Connection,
  request: ReadRequest,
  signal: AbortSignal | undefined,
  { waits, costs }: { waits: boolean; costs: () => QueryCosts },
): Promise<Results | null> {
  await Promise.resolve();
  signal?.throwIfAborted();
  const own = request.timeLimitMs ?? Infinity;
  const capped = { ...request, timeLimitMs: Math.min(own, INLINE_LIMIT_MS) };
  const connection = conn();
  // A file another process writes to may be locked for a moment: this thread must not wait
  // for it (the busy timeout sleeps), a worker will.
  if (waits) connection.setBusyTimeout(0);
  // Its cost is this thread's CPU time, as in the workers (`worker.ts`).
  const started = threadCpuMs();
  try {
    const result = runRead(connection, capped);
    costs().record(request.sql, threadCpuMs() - started);
    return new Results(result.rows, result.columns, result.truncated, result.real_columns);
  } catch (error) {
    costs().record(request.sql, threadCpuMs() - started);
    const outOfTime = own <= INLINE_LIMIT_MS ||
      (request.deadline !== null && request.deadline <= wallClock());
    if (isInterruptError(error) && !outOfTime) return null;
    if ((error as { code?: number }).code === SQLITE_BUSY) return null;
    throw error;
  } finally {
    if (waits) connection.setBusyTimeout(READER_BUSY_TIMEOUT_MS);
  }
}
