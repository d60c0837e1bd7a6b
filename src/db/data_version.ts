/**
 * What a mutable file's answers in the query cache are keyed by. `PRAGMA data_version` on one
 * connection changes whenever any other connection commits to the file — this process's write
 * connection, another process, LiteFS applying the primary's changes — so an answer kept under
 * the version a request read before its query ran is never served after a later commit: the
 * next request reads another version and misses.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { runRead } from "./read_query.ts";
import { isBusyError } from "./write_lock.ts";

/**
 * Tells the main-thread read connections of all databases apart, across reopenings and across
 * processes: `data_version` counts from a connection's opening, so two replicas may both be at
 * version 5 of one file while holding different data, and a tag from one must not match the
 * other's (a random prefix per process).
 */
const PROCESS = crypto.randomUUID().slice(0, 8);
let connections = 0;
const numbers = new WeakMap<Connection, number>();

/**
 * A key for the contents of the file `conn` reads, now: the connection's own number (its
 * `data_version` counts from its opening) and the version. Null when it cannot be told without
 * waiting (a writer holds the file locked for a moment) or would be stale (a transaction is open
 * on the connection, e.g. left by an `execute_fn` function): the caller then reads uncached.
 * `maxBytes` is the byte cap the connection's other reads run under, so that the visitor limits
 * they applied stay applied (see `Connection.restricted`).
 */
export function contentVersion(
  conn: Connection,
  maxBytes: number | null,
  busyTimeoutMs: number,
): string | null {
  if (conn.inTransaction) return null;
  let number = numbers.get(conn);
  if (number === undefined) numbers.set(conn, number = ++connections);
  // This thread must not wait for a lock: a busy file is read uncached instead.
  conn.setBusyTimeout(0);
  try {
    const { rows } = runRead(conn, {
      sql: "PRAGMA data_version",
      params: null,
      maxRows: 1,
      timeLimitMs: null,
      deadline: null,
      maxBytes,
    });
    return `${PROCESS}.${number}.${rows[0][0]}`;
  } catch (error) {
    if (isBusyError(error)) return null;
    throw error;
  } finally {
    conn.setBusyTimeout(busyTimeoutMs);
  }
}
