/**
 * The read pool's export cursors (`ReadPool.cursor`, `pool.ts`): one statement read chunk by chunk
 * on the one worker that opened it, for `_stream=on` downloads.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import type { ReadRequest } from "./read_query.ts";
import type { ReadTarget } from "./read_target.ts";
import {
  type ChunkRequest,
  type CursorChunk,
  type PoolCursor,
  type PoolWorker,
  reviveError,
} from "./pool_jobs.ts";
import { decodeRows } from "./wire.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";

/** What a cursor needs of the pool. */
export interface CursorHost {
  /** A new message id. */
  nextId(): number;
  /** Queues `message` like a query; `onSend` is told which worker took it. */
  enqueue(
    message: ToWorker,
    request: ReadRequest,
    onSend: (worker: PoolWorker) => void,
  ): Promise<FromWorker>;
  /** Sends `message` to `worker` once it is free, before anything from the queue. */
  onWorker(worker: PoolWorker, message: ToWorker): Promise<FromWorker>;
}

/**
 * Reads `request`'s rows chunk by chunk (each as `next` asks: as export lines or as rows), in one
 * statement on one worker: the first chunk waits in the queue like any query, the following ones
 * go to the same worker as soon as it is free. Each chunk has `request.timeLimitMs` of its own.
 * The worker counts the cursor while it is open (`PoolWorker.cursors`), so it is not stopped.
 */
export function openCursor(host: CursorHost, target: ReadTarget, request: ReadRequest): PoolCursor {
  const cursorId = host.nextId();
  let owner: PoolWorker | null = null;
  let finished = false;
  const ended = () => {
    finished = true;
    if (owner) owner.cursors--;
  };
  const message = ({ text, rows }: ChunkRequest): ToWorker => ({
    type: "cursor",
    id: host.nextId(),
    cursor: cursorId,
    target,
    request,
    text,
    rows,
    open: owner === null,
  });
  const settle = (reply: FromWorker): CursorChunk => {
    if (reply.type === "error") throw reviveError(reply.error);
    if (reply.type !== "chunk") throw new Error("Unexpected answer from a read worker");
    if (reply.done && !finished) ended();
    let values: SqlValue[][] | null = null;
    // The chunk is handed on, not shared: see `takeLines` (render/row_stream.ts).
    const lines = reply.lines;
    reply.lines = null;
    return {
      columns: reply.columns,
      lines,
      real_columns: reply.real_columns,
      rows: () => {
        if (reply.rows === null) throw new Error("This chunk was sent as lines only");
        return values ??= decodeRows(reply.rows.json, reply.rows.tagged);
      },
      done: reply.done,
    };
  };
  const failed = (error: unknown): never => {
    if (!finished) ended();
    throw error;
  };
  return {
    next: (read) => {
      if (finished) return Promise.reject(new Error("The cursor is closed"));
      if (!owner) {
        return host.enqueue(message(read), request, (worker) => {
          owner = worker;
          worker.cursors++;
        }).then(settle, failed);
      }
      return host.onWorker(owner, message(read)).then(settle, failed);
    },
    close: async () => {
      if (finished || !owner) {
        finished = true;
        return;
      }
      ended();
      await host.onWorker(owner, { type: "cursor-close", id: host.nextId(), cursor: cursorId })
        .catch(() => {});
    },
  };
}
