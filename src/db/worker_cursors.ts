/**
 * Export cursors inside a read worker: one statement read chunk by chunk, so that a `_stream=on`
 * export runs its query once instead of once per page (which for views and custom SQL meant an
 * `OFFSET` that grew with every page). Each chunk has its own time limit; a cursor nobody asked
 * for in a minute is closed.
 *
 * A chunk is read {@link BATCH_ROWS} rows at a time, each batch written as lines and encoded into
 * the chunk's bytes at once: the values and the text of a batch die young, where a whole chunk of
 * rows, then its text, lived long enough to be promoted and grew the worker's heap with every
 * export (and the text was a rope of thousands of lines until encoded).
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Statement } from "../sqlite/statement.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { returnFreedMemoryNow } from "../util/malloc_tuning.ts";
import { textRows, type TextRowsOptions } from "../util/text_rows.ts";
import { cellLines } from "../util/cell_lines.ts";
import { canReadCells, CellBatch } from "../sqlite/cell_batch.ts";
import { shrinkHeap } from "../util/young_garbage.ts";
import { BIG_EXPORT_BYTES } from "./worker_protocol.ts";
import {
  interruptedError,
  type ReadRequest,
  visitorLimits,
  wallClock,
  withRealColumns,
} from "./read_query.ts";

interface Cursor {
  statement: Statement;
  conn: Connection;
  columns: string[];
  lastUsed: number;
  /** Bytes of the last chunk: the next one's buffer is sized from it. */
  lastBytes: number;
  /** Bytes of lines sent so far. */
  sentBytes: number;
  /** Rows read but not sent: a batch with a BLOB cell that followed lines in the same chunk. */
  pending: { rows: SqlValue[][]; done: boolean } | null;
  /** How long reading the last chunk took. */
  readMs: number;
  /** The next chunk, read before it was asked for (`readAhead`), or how reading it failed. */
  ahead: { chunk: Chunk } | { error: unknown } | null;
}

/** Rows read and written at a time within a chunk. */
const BATCH_ROWS = 500;
/** Fewer rows for a wide table: a batch's arrays (`CellBatch`) are kept for the next batch. */
const BATCH_CELLS = 8192;
/**
 * A chunk ends after this many cells, whatever rows the main thread asked for: each chunk has
 * the query's time limit, and 5,000 rows of a table of 1,900 columns overran it on a busy machine
 * where pages of the same export did not.
 */
const CHUNK_CELLS = 65_536;

/** A chunk that took longer than this is not followed by one read ahead (`readAhead`). */
const READ_AHEAD_MAX_MS = 20;

/** A cursor left alone this long is closed (its client is gone without saying so). */
const IDLE_MS = 60_000;

const cursors = new Map<number, Cursor>();

/**
 * One chunk: its rows written as lines (UTF-8), or the rows themselves when a cell is a BLOB or
 * rows were asked for.
 */
export interface Chunk {
  columns: string[];
  lines: Uint8Array | null;
  rows: SqlValue[][] | null;
  /** Columns whose numbers were all stored as REAL in the rows read so far. */
  real_columns: number[];
  done: boolean;
}

const encoder = new TextEncoder();

/** The cells of the batch being read; one per worker, refilled batch after batch. */
const cells = new CellBatch();

/**
 * The next `count` rows of cursor `id`: the chunk read ahead if there is one (`readAhead`), else
 * read now, as lines (`text`) or, with `text` null, as rows. `open` says this is the cursor's
 * first chunk and opens it on `conn`; a later request for a cursor that is gone fails (it was
 * closed after a minute without reads), rather than starting the export again from its first row.
 */
export function readChunk(
  conn: Connection,
  id: number,
  request: ReadRequest,
  text: TextRowsOptions | null,
  count: number,
  open: boolean,
): Chunk {
  closeIdle();
  let cursor = cursors.get(id);
  if (!cursor && !open) {
    throw new Error("This export stopped: nothing asked for its next rows for a minute");
  }
  cursor ??= openCursor(conn, id, request);
  cursor.lastUsed = performance.now();
  const ahead = cursor.ahead;
  cursor.ahead = null;
  try {
    if (ahead && "error" in ahead) throw ahead.error;
    const chunk = ahead ? ahead.chunk : readNext(cursor, request, text, count);
    if (chunk.done) closeCursor(id);
    return chunk;
  } catch (error) {
    closeCursor(id);
    throw error;
  }
}

/**
 * Reads cursor `id`'s next chunk now, for the request that follows the one just answered. The
 * main thread asks for a chunk only when the previous one has reached it, so without this the
 * worker waited a thread round trip per chunk (0.7 ms; a tenth of a whole-table export). A
 * failure is kept and given to that request. One chunk is held, no more.
 */
export function readAhead(id: number, request: ReadRequest, text: TextRowsOptions, count: number) {
  const cursor = cursors.get(id);
  // A request with a deadline of its own (not an export's) is not guessed at. Nor are the chunks
  // of a slow query: the pool sees this worker as free, and a short query sent to it meanwhile
  // would wait behind one.
  if (!cursor || cursor.ahead || request.deadline !== null) return;
  if (cursor.readMs > READ_AHEAD_MAX_MS) return;
  try {
    cursor.ahead = { chunk: readNext(cursor, request, text, count) };
  } catch (error) {
    cursor.ahead = { error };
  }
}

function openCursor(conn: Connection, id: number, request: ReadRequest): Cursor {
  const maxBytes = request.maxBytes ? request.maxBytes : Infinity;
  const statement = conn.restricted(
    () => conn.openCursor(request.sql, request.params ?? undefined),
    visitorLimits(maxBytes),
    request.owner === true,
  );
  const cursor: Cursor = {
    statement,
    conn,
    columns: statement.columns(),
    lastUsed: 0,
    lastBytes: 0,
    sentBytes: 0,
    pending: null,
    readMs: 0,
    ahead: null,
  };
  cursors.set(id, cursor);
  return cursor;
}

/** The cursor's next chunk, under the request's time limit and the visitor limits. */
function readNext(
  cursor: Cursor,
  request: ReadRequest,
  text: TextRowsOptions | null,
  count: number,
): Chunk {
  const maxBytes = request.maxBytes ? request.maxBytes : Infinity;
  const conn = cursor.conn;
  let remaining = request.timeLimitMs && request.timeLimitMs > 0 ? request.timeLimitMs : Infinity;
  if (request.deadline !== null) remaining = Math.min(remaining, request.deadline - wallClock());
  if (remaining <= 0) throw interruptedError();
  if (remaining !== Infinity) conn.setDeadline(remaining);
  const started = performance.now();
  try {
    return conn.restricted(
      () => {
        const chunk = text
          ? nextChunk(cursor, text, count, maxBytes)
          : rowsChunk(cursor, count, maxBytes);
        return { ...chunk, real_columns: cursor.statement.realColumns() };
      },
      visitorLimits(maxBytes),
      request.owner === true,
    );
  } finally {
    cursor.readMs = performance.now() - started;
    if (remaining !== Infinity) conn.setDeadline(null);
  }
}

/**
 * Up to `count` rows of `cursor` as they are (any rows left from a lines chunk first), batch by
 * batch under the same limits as lines: at most {@link CHUNK_CELLS} cells, and the chunk ends
 * once its values reach the byte cap.
 */
function rowsChunk(cursor: Cursor, count: number, maxBytes: number): Omit<Chunk, "real_columns"> {
  if (cursor.pending) {
    const { rows, done } = cursor.pending;
    cursor.pending = null;
    return { columns: cursor.columns, lines: null, rows, done };
  }
  const { batchRows, chunkRows } = chunkSizes(cursor, count);
  const rows: SqlValue[][] = [];
  let spent = 0;
  let done = false;
  while (rows.length < chunkRows && !done && spent < maxBytes) {
    const want = Math.min(batchRows, chunkRows - rows.length);
    const batch = cursor.statement.all(want, maxBytes);
    done = batch.length < want;
    if (maxBytes !== Infinity) spent += valueBytes(batch);
    for (const row of batch) rows.push(row);
  }
  refreshColumns(cursor);
  return { columns: cursor.columns, lines: null, rows, done };
}

/** Rows per batch and per chunk for `cursor`'s width (fewer for wide rows). */
function chunkSizes(cursor: Cursor, count: number): { batchRows: number; chunkRows: number } {
  const width = Math.max(1, cursor.columns.length);
  const batchRows = Math.min(BATCH_ROWS, Math.max(1, Math.floor(BATCH_CELLS / width)));
  return {
    batchRows,
    chunkRows: Math.min(count, Math.max(batchRows, Math.floor(CHUNK_CELLS / width))),
  };
}

/**
 * Up to `count` rows of `cursor` as lines, batch by batch. A batch the lines cannot hold (a BLOB
 * cell) is sent as rows: on its own, or after the lines before it as the next chunk. The byte
 * cap (`max_returned_bytes`) holds for each batch, as for a page of rows: a chunk whose values
 * reach it ends there, and the next chunk goes on (an export of pages never failed on it).
 */
function nextChunk(
  cursor: Cursor,
  text: TextRowsOptions,
  count: number,
  maxBytes: number,
): Omit<Chunk, "real_columns"> {
  if (cursor.pending) {
    const { rows, done } = cursor.pending;
    cursor.pending = null;
    return { columns: cursor.columns, lines: null, rows, done };
  }
  let out = new Uint8Array(Math.max(64 * 1024, cursor.lastBytes + (cursor.lastBytes >> 3)));
  let at = 0;
  let read = 0;
  let spent = 0;
  let done = false;
  const put = (lines: Uint8Array) => {
    if (out.length - at < lines.length) {
      const bigger = new Uint8Array(
        Math.max(out.length * 2, at + lines.length + (lines.length >> 1)),
      );
      bigger.set(out.subarray(0, at));
      out = bigger;
    }
    out.set(lines, at);
    at += lines.length;
  };
  const fast = canReadCells();
  const { batchRows, chunkRows } = chunkSizes(cursor, count);
  while (read < chunkRows && !done && spent < maxBytes) {
    const want = Math.min(batchRows, chunkRows - read);
    let rows: SqlValue[][];
    if (fast) {
      const stop = cursor.statement.readCells(cells, want, maxBytes);
      read += cells.rows;
      spent += cells.byteLength;
      done = stop === "done";
      refreshColumns(cursor);
      if (cells.rows > 0) put(cellLines(cells, cursor.columns, realText(cursor, text)));
      if (stop !== "blob") continue;
      // The row with the BLOB, and the rest of the batch, are sent as rows.
      const rest = want - cells.rows;
      const first = cursor.statement.values();
      rows = [first, ...cursor.statement.all(rest - 1, maxBytes - cells.byteLength)];
      read += rows.length;
      done = rows.length < rest;
    } else {
      rows = cursor.statement.all(want, maxBytes);
      read += rows.length;
      done = rows.length < want;
      refreshColumns(cursor);
      if (rows.length === 0) break;
      const lines = textRows(cursor.columns, rows, {
        ...realText(cursor, text),
        limit: rows.length,
      });
      if (lines !== null) {
        put(encoder.encode(lines));
        continue;
      }
    }
    if (maxBytes !== Infinity) spent += valueBytes(rows);
    if (at === 0) return { columns: cursor.columns, lines: null, rows, done };
    cursor.pending = { rows, done };
    done = false;
    break;
  }
  cursor.lastBytes = at;
  cursor.sentBytes += at;
  // A buffer mostly empty is copied down rather than sent whole.
  const lines = at * 2 < out.length ? out.slice(0, at) : out.subarray(0, at);
  return { columns: cursor.columns, lines, rows: null, done };
}

/** A statement recompiled by its first step may have other columns than before it. */
function refreshColumns(cursor: Cursor): void {
  if (cursor.columns.length !== cursor.statement.columns().length) {
    cursor.columns = cursor.statement.columns();
  }
}

/** REAL by declaration, or by what the rows so far held (a query's expressions). */
function realText(cursor: Cursor, text: TextRowsOptions): TextRowsOptions {
  return { ...text, real: withRealColumns(text.real, cursor.statement.realColumns()) };
}

/** What `Statement.all` counts against its byte cap: text characters and BLOB bytes. */
function valueBytes(rows: SqlValue[][]): number {
  let bytes = 0;
  for (const row of rows) {
    for (const value of row) {
      if (typeof value === "string") bytes += value.length;
      else if (value instanceof Uint8Array) bytes += value.byteLength;
    }
  }
  return bytes;
}

/** Finalizes cursor `id` (nothing if it is already gone). */
export function closeCursor(id: number): void {
  const cursor = cursors.get(id);
  if (!cursor) return;
  cursors.delete(id);
  cursor.statement.finalize();
  if (cursor.sentBytes >= BIG_EXPORT_BYTES) {
    // The scan filled the connection's page cache with pages read once (2 MB by default).
    cursor.conn.releaseMemory();
    shrinkDue = true;
  }
}

/** Set when a big export ended: {@link shrinkHeapIfDue} has work to do. */
let shrinkDue = false;

/**
 * Shrinks the worker's heap after a big export ended ({@link shrinkHeap}), then hands what the
 * export freed outside it back to the system. The worker calls it once its reply is posted, so
 * that the collection does not hold the export's last chunk back.
 */
export function shrinkHeapIfDue(): void {
  if (!shrinkDue) return;
  shrinkDue = false;
  shrinkHeap();
  returnFreedMemoryNow();
}

/** Finalizes every cursor of `conn` (before the connection closes). */
export function closeCursorsOf(conn: Connection): void {
  for (const [id, cursor] of cursors) if (cursor.conn === conn) closeCursor(id);
}

function closeIdle(): void {
  const now = performance.now();
  for (const [id, cursor] of cursors) if (now - cursor.lastUsed > IDLE_MS) closeCursor(id);
}
