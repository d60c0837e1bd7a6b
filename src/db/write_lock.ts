/**
 * Taking the write lock of a file that other processes may be writing too (replicas on one host
 * serving the same mutable file). SQLite's own busy timeout would wait by sleeping the thread,
 * which here is the one thread serving every request; instead `BEGIN IMMEDIATE` is tried without
 * waiting and, while another process holds the lock, tried again after a short async pause.
 * `BEGIN IMMEDIATE` fails before anything is written, so a retried write is applied exactly once.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { StatusError } from "../util/errors.ts";

/** SQLite's "database is locked" and "database table is locked". */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
/** SQLite's "attempt to write a readonly database" and "disk I/O error". */
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;

/** The longest pause between two attempts, in ms (the first is about 1 ms). */
const MAX_PAUSE_MS = 50;

/**
 * Another process kept the write lock for longer than `write_lock_timeout_ms`, or the file
 * cannot be written here right now (a LiteFS replica). A 503 the client may retry.
 */
export class DatabaseBusy extends StatusError {
  override name = "DatabaseBusy";
  /** Builds the 503 with `Retry-After: 1`. */
  constructor(message: string, options: ErrorOptions = {}) {
    super(503, message, { ...options, title: "Database busy", headers: { "retry-after": "1" } });
  }
}

/** True for SQLite's "database is locked" (SQLITE_BUSY, also its extended codes). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === SQLITE_BUSY || code === SQLITE_LOCKED;
}

/** True when SQLite refused to write the file itself: read-only (a LiteFS replica) or I/O. */
export function isUnwritableError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === SQLITE_READONLY || code === SQLITE_IOERR;
}

/** Options of {@link beginImmediate}. */
export interface LockOptions {
  /** Give up after this many ms of waiting (`write_lock_timeout_ms`). */
  timeoutMs: number;
  /** The busy timeout to restore once the lock is held (the fallback for COMMIT). */
  busyTimeoutMs: number;
  /** Names the database in the error. */
  label: string;
}

/** Longest wait for the lock that switching a file to WAL needs (the thread waits). */
const WAL_SWITCH_WAIT_MS = 250;

/**
 * Readies a database's write connection: it waits up to `busyTimeoutMs` for a lock another
 * connection holds (only where Vitrine does not wait itself: writes that manage their own
 * transaction, COMMIT in rollback-journal mode). With `wal`, the file is switched to WAL on its
 * first write: readers then never block the writer, nor one another, in any process. Best
 * effort: a file that cannot switch now (locked, read-only) keeps its journal mode.
 */
export function prepareWriteConnection(
  conn: Connection,
  options: { label: string; busyTimeoutMs: number; wal: boolean },
): void {
  if (options.wal) {
    conn.exec(`PRAGMA busy_timeout = ${Math.min(options.busyTimeoutMs, WAL_SWITCH_WAIT_MS)}`);
    try {
      const mode = conn.query("PRAGMA journal_mode").rows[0]?.[0];
      if (mode !== "wal") conn.query("PRAGMA journal_mode = WAL");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(
        `Database "${options.label}" could not switch to WAL now (${message}); it keeps its ` +
          "journal mode until a later write connection (or another process) switches it",
      );
    }
  }
  conn.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`);
  // Writes through Vitrine keep references intact (SQLite's default leaves them unchecked).
  conn.exec("PRAGMA foreign_keys = ON");
}

/**
 * Runs `task` inside a transaction opened with {@link beginImmediate} and committed after it
 * (rolled back if it throws). `onLocked` learns how long the lock took to get, in ms.
 */
export async function inManagedTransaction<T>(
  conn: Connection,
  task: (conn: Connection) => T,
  options: { timeoutMs: number; label: string; onLocked?: (ms: number) => void },
): Promise<Awaited<T>> {
  const started = performance.now();
  await beginImmediate(conn, {
    timeoutMs: options.timeoutMs,
    busyTimeoutMs: options.timeoutMs,
    label: JSON.stringify(options.label),
  });
  options.onLocked?.(performance.now() - started);
  try {
    const result = await task(conn);
    if (conn.isOpen && conn.inTransaction) conn.exec("COMMIT");
    return result;
  } catch (error) {
    try {
      if (conn.isOpen && conn.inTransaction) conn.exec("ROLLBACK");
    } catch { /* the task's error matters more */ }
    throw error;
  }
}

/**
 * A write SQLite refused because the file cannot be written here (a LiteFS replica answers
 * SQLITE_READONLY or SQLITE_IOERR) is a retryable 503, not a 500; other errors are returned as
 * they are.
 */
export function unwritable(error: unknown, name: string): unknown {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  if (!isUnwritableError(error) && !isUnwritableError(cause)) return error;
  return new DatabaseBusy(
    `Database ${JSON.stringify(name)} cannot be written on this server right now ` +
      `(${error instanceof Error ? error.message : error}). Try again.`,
    { cause: error },
  );
}

/**
 * Opens a write transaction with `BEGIN IMMEDIATE`, pausing (not blocking) while another
 * connection holds the lock. Rejects with {@link DatabaseBusy} once `timeoutMs` have passed.
 */
export async function beginImmediate(conn: Connection, options: LockOptions): Promise<void> {
  const giveUpAt = performance.now() + options.timeoutMs;
  let pause = 1;
  conn.exec("PRAGMA busy_timeout = 0");
  try {
    for (;;) {
      try {
        conn.exec("BEGIN IMMEDIATE");
        return;
      } catch (error) {
        if (!isBusyError(error)) throw error;
        if (performance.now() >= giveUpAt) {
          throw new DatabaseBusy(
            `Database ${options.label} is busy: another process kept it locked for more than ` +
              `${options.timeoutMs} ms (the write_lock_timeout_ms setting). Try again.`,
            { cause: error },
          );
        }
      }
      // Jitter keeps several waiting processes from retrying in lockstep.
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  } finally {
    if (conn.isOpen) conn.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`);
  }
}
