/**
 * Messages between the main thread (`pool.ts`) and a read worker (`worker.ts`).
 * One request is in flight per worker at a time, which is what makes cancellation safe: the
 * main thread only interrupts the connection of the request it is still waiting for.
 *
 * @module
 */

import type { ReadRequest, SerializedError } from "./read_query.ts";
import type { ReadTarget } from "./read_target.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";

/**
 * An export that sent this much leaves memory to give back behind it: the read worker shrinks its
 * heap and empties its connection's page cache (`worker_cursors.ts`).
 */
export const BIG_EXPORT_BYTES = 8 * 1024 * 1024;

/** Rows as JSON text (see `wire.ts`); parsed on the main thread only if someone reads them. */
export interface WireRows {
  json: string;
  tagged: boolean;
}

/** Main thread → worker. */
export type ToWorker =
  | {
    type: "init";
    pluginModules: string[];
    /** `path[:entrypoint]` of each `--load-extension`, loaded into every connection. */
    extensions: string[];
    cacheSizeKb: number;
    niceness: number;
  }
  /** `sentAt` (wall clock): a query sent before the worker finished booting is not charged for the boot. */
  | { type: "query"; id: number; target: ReadTarget; request: ReadRequest; sentAt?: number }
  | { type: "forget"; id: number; name: string; instance?: number }
  /**
   * The next `rows` rows of an export's cursor: opened by the first message (`open`), then read
   * chunk by chunk on this worker until done or closed. A later message for a cursor that is
   * gone (closed after a minute without reads) fails rather than opening it again. `text` null
   * asks for the rows themselves (the first page of a stream, rows that get labels).
   */
  | {
    type: "cursor";
    id: number;
    cursor: number;
    target: ReadTarget;
    request: ReadRequest;
    text: TextRowsOptions | null;
    rows: number;
    open: boolean;
    sentAt?: number;
  }
  | { type: "cursor-close"; id: number; cursor: number }
  /** The pool has had nothing for this worker a while: give back what it holds (`worker.ts`). */
  | { type: "release"; id: number }
  /** The pool is about to terminate this worker: close every connection first. */
  | { type: "stop"; id: number };

/** Worker → main thread. */
export type FromWorker =
  /** Sent before a query when its connection differs from the previous one reported. */
  | { type: "connection"; id: number; pointer: bigint }
  | {
    type: "result";
    id: number;
    columns: string[];
    truncated: boolean;
    /** Columns whose numbers were all stored as REAL (`Statement.realColumns`). */
    real_columns: number[];
    count: number;
    /** Null for an export page written as lines (`request.text`): its values are not needed. */
    rows: WireRows | null;
    /** With `request.json`: the page's rows as UTF-8 JSON (transferred, not copied). */
    page: { bytes: Uint8Array; edge: WireRows | null } | null;
    /**
     * The CPU time the query took on the worker's thread, in milliseconds (the pool learns each
     * SQL text's cost; `util/thread_clock.ts`).
     */
    ms: number;
  }
  | { type: "error"; id: number; error: SerializedError; ms: number }
  /** A chunk of a cursor: its lines, or (with a BLOB cell) its rows; `done` when it was the last. */
  | {
    type: "chunk";
    id: number;
    columns: string[];
    lines: Uint8Array | null;
    rows: WireRows | null;
    /** Columns whose numbers were all stored as REAL so far (`Statement.realColumns`). */
    real_columns: number[];
    done: boolean;
    ms: number;
  }
  | { type: "done"; id: number }
  /** The worker finished booting (modules and plugins loaded) and takes queries now. */
  | { type: "ready" }
  /** The worker is about to close itself (`self.close()` or `Deno.exit()` in plugin code). */
  | { type: "exit"; reason: string };
