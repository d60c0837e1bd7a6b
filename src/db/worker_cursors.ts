/**
 * Export cursors inside a read worker: one statement read chunk by chunk, so that a `_stream=on`
 * export runs its query once instead of once per page (which for views and custom SQL meant an
 * `OFFSET` that grew with every page). Each chunk has its own time limit; a cursor nobody asked
 * for in a minute is closed.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Statement } from "../sqlite/statement.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { textRows, type TextRowsOptions } from "../util/text_rows.ts";
import { interruptedError, type ReadRequest, visitorLimits, wallClock } from "./read_query.ts";

interface Cursor {
  statement: Statement;
  conn: Connection;
  columns: string[];
  lastUsed: number;
}

/** A cursor left alone this long is closed (its client is gone without saying so). */
const IDLE_MS = 60_000;

const cursors = new Map<number, Cursor>();

/** One chunk: its rows written as lines, or the rows themselves when a cell is a BLOB. */
export interface Chunk {
  columns: string[];
  lines: string | null;
  rows: SqlValue[][] | null;
  done: boolean;
}

/** Reads the next `count` rows of cursor `id`, opening it on `conn` first if it is new. */
export function readChunk(
  conn: Connection,
  id: number,
  request: ReadRequest,
  text: TextRowsOptions,
  count: number,
): Chunk {
  closeIdle();
  const maxBytes = request.maxBytes ? request.maxBytes : Infinity;
  const limits = visitorLimits(maxBytes);
  let cursor = cursors.get(id);
  if (!cursor) {
    const statement = conn.restricted(
      () => conn.openCursor(request.sql, request.params ?? undefined),
      limits,
    );
    cursor = { statement, conn, columns: statement.columns(), lastUsed: 0 };
    cursors.set(id, cursor);
  }
  cursor.lastUsed = performance.now();
  let remaining = request.timeLimitMs && request.timeLimitMs > 0 ? request.timeLimitMs : Infinity;
  if (request.deadline !== null) remaining = Math.min(remaining, request.deadline - wallClock());
  try {
    if (remaining <= 0) throw interruptedError();
    if (remaining !== Infinity) conn.setDeadline(remaining);
    const rows = conn.restricted(() => cursor!.statement.all(count, maxBytes), limits);
    const done = rows.length < count;
    // A statement recompiled by its first step may have other columns than before it.
    if (cursor.columns.length !== cursor.statement.columns().length) {
      cursor.columns = cursor.statement.columns();
    }
    const lines = textRows(cursor.columns, rows, { ...text, limit: rows.length });
    if (done) closeCursor(id);
    return { columns: cursor.columns, lines, rows: lines === null ? rows : null, done };
  } catch (error) {
    closeCursor(id);
    throw error;
  } finally {
    if (remaining !== Infinity) conn.setDeadline(null);
  }
}

/** Finalizes cursor `id` (nothing if it is already gone). */
export function closeCursor(id: number): void {
  const cursor = cursors.get(id);
  if (!cursor) return;
  cursors.delete(id);
  cursor.statement.finalize();
}

/** Finalizes every cursor of `conn` (before the connection closes). */
export function closeCursorsOf(conn: Connection): void {
  for (const [id, cursor] of cursors) if (cursor.conn === conn) closeCursor(id);
}

function closeIdle(): void {
  const now = performance.now();
  for (const [id, cursor] of cursors) if (now - cursor.lastUsed > IDLE_MS) closeCursor(id);
}
