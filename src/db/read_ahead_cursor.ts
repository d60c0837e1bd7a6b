/**
 * An export's cursor that asks its read worker for the next chunk while the current one is
 * being sent, so the worker always has a chunk to write instead of waiting a thread round trip
 * for each. Apart from `Database.exportCursor`, which opens the cursor and maps its errors.
 *
 * @module
 */

import type { ChunkRequest, CursorChunk, PoolCursor } from "./pool.ts";

/**
 * A cursor over `read` (one chunk a call) that reads one chunk ahead: the caller asks one chunk
 * ahead already, so one more chunk is held, no more. Not after the first chunk: a stream's first
 * page is read as rows, the following ones differently. `close` ends the underlying cursor.
 */
export function readAheadCursor(
  read: (chunk: ChunkRequest) => Promise<CursorChunk>,
  close: () => Promise<void>,
): PoolCursor {
  let ahead: Promise<CursorChunk> | null = null;
  let closed = false;
  let first = true;
  return {
    next: (chunkRequest) => {
      const chunk = ahead ?? read(chunkRequest);
      ahead = null;
      const followed = !first;
      first = false;
      return chunk.then((value) => {
        if (!value.done && !closed && followed) {
          ahead = read(chunkRequest);
          ahead.catch(() => {}); // taken by the next call, or dropped with the cursor
        }
        return value;
      });
    },
    close: () => {
      closed = true;
      ahead = null;
      return close();
    },
  };
}
