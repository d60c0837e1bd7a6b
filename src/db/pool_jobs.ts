/**
 * What the read pool (`pool.ts`, `pool_queue.ts`, `pool_cursor.ts`) keeps of its jobs and workers, the helpers that make and read
 * jobs, and the shapes of what it answers (a query's rows, an export cursor's chunks).
 *
 * @module
 */

import { SqliteError } from "../sqlite/errors.ts";
import type { EncodedPage, ReadRequest, SerializedError } from "./read_query.ts";
import type { SqlValue } from "../sqlite/values.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";

/**
 * A query's wait in the queue is not charged to its time limit, up to this many times that limit;
 * one still waiting then fails without running. When the wait counted, queries that had waited
 * 400–970 ms for a worker on a loaded machine were interrupted 70–530 ms into their run, after
 * 5–55 ms of CPU: 22 failed answers in 5 s of the varied mix (bench/honest_load.ts).
 */
export const QUEUE_WAIT_FACTOR = 4;

/** The longest wait in the queue not charged to a request's deadline (0 without a time limit). */
export function queueBound(request: ReadRequest): number {
  const limit = request.timeLimitMs;
  return limit !== null && limit > 0 ? limit * QUEUE_WAIT_FACTOR : 0;
}

/** A query or control message, queued or sent to a worker. */
export interface Job {
  id: number;
  message: ToWorker;
  /** Its SQL text (null for control messages). */
  sql: string | null;
  /** Its text has been long so far: it waits in the long lane (decided again while it waits). */
  long: boolean;
  /** Its text has run before and was short: it may take a spare worker. */
  knownShort: boolean;
  /** `performance.now()` when it was queued: a long job waiting too long goes first. */
  queuedAt: number;
  /** How far its deadline has moved so far for its wait in the queue (boots included), ms. */
  credited: number;
  /**
   * The pool's booting time (`BootClock`, `pool_queue.ts`) already added to the job's deadline
   * (or reached before it was queued): what is beyond it at expiry was spent waiting for a boot.
   */
  bootMark: number;
  /** Fails the job as interrupted when its deadline passes in the queue. */
  timer: ReturnType<typeof setTimeout> | null;
  /**
   * Interrupts the running query once its time is over, in case the worker's progress handler
   * could not (`ReadPool`'s `#armLimit`).
   */
  limitTimer?: ReturnType<typeof setTimeout>;
  /** Told which worker the job went to (a cursor stays on the worker that opened it). */
  onSend?: (worker: PoolWorker) => void;
  resolve(value: FromWorker): void;
  reject(error: Error): void;
}

/** A read worker of the pool. */
export interface PoolWorker {
  worker: Worker;
  index: number;
  spare: boolean;
  current: Job | null;
  /** `performance.now()` when `current` was sent. */
  since: number;
  /** Control messages (`forget`) waiting for this worker to be free. */
  control: Job[];
  /** The connection the current query runs on, for `sqlite3_interrupt`. */
  pointer: bigint | null;
  idleTimer: ReturnType<typeof setTimeout> | null;
  /** Export cursors open on this worker: it is not stopped while it holds one. */
  cursors: number;
  /** It ran queries since it last released memory (or started). */
  used: boolean;
  /** It finished booting: its modules and plugins are loaded. */
  ready: boolean;
}

/** A job carrying a control message (`forget`, `release`, `stop`, a cursor's): no SQL, no deadline. */
export function controlJob(
  id: number,
  message: ToWorker,
  resolve: (value: FromWorker) => void,
  reject: (error: Error) => void,
): Job {
  return {
    id,
    message,
    sql: null,
    long: false,
    knownShort: false,
    queuedAt: 0,
    credited: 0,
    bootMark: 0,
    timer: null,
    resolve,
    reject,
  };
}

/** The read request a job carries (none for control messages). */
export function jobRequest(job: Job): ReadRequest | null {
  const message = job.message;
  return message.type === "query" || message.type === "cursor" ? message.request : null;
}

/** Rebuilds a worker's error on this thread (SQLite errors stay `SqliteError`). */
export function reviveError(error: SerializedError): Error {
  if (error.extendedCode !== undefined) return new SqliteError(error.message, error.extendedCode);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}

/** A read query's answer; its rows are parsed only when `rows()` is first called. */
export interface ReadAnswer {
  columns: string[];
  truncated: boolean;
  /** Columns whose numbers were all stored as REAL (`Statement.realColumns`). */
  real_columns: number[];
  /** Number of rows. */
  count: number;
  rows(): SqlValue[][];
  /** The page's rows as JSON, when the request asked for them (`ReadRequest.json`). */
  page: EncodedPage | null;
}

/** One chunk of an export cursor (see {@link ReadPool.cursor}). */
export interface CursorChunk {
  columns: string[];
  /** The rows as export lines, or null when a cell was a BLOB (then `rows()` has them). */
  lines: Uint8Array | null;
  rows(): SqlValue[][];
  /** Columns whose numbers were all stored as REAL in the rows read so far. */
  real_columns: number[];
  done: boolean;
}

/** How to read a cursor's next chunk: `rows` rows, as lines (`text`) or as rows (`text` null). */
export interface ChunkRequest {
  text: TextRowsOptions | null;
  rows: number;
}

/** An export's query read chunk by chunk on one worker. */
export interface PoolCursor {
  /** The next chunk (the first one opens the cursor). */
  next(read: ChunkRequest): Promise<CursorChunk>;
  /** Finalizes the statement early (a client that went away). */
  close(): Promise<void>;
}
