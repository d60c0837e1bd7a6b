/**
 * A `_stream=on` export of a table, view or query read from one cursor: one statement, opened once
 * and stepped to its end, so every row comes from one snapshot and exactly once, whatever the
 * order (`order by random()`, ties) and whatever is written meanwhile. Re-running the query for
 * each page (`OFFSET`, or a key seek) gave duplicates and gaps for any order that is not total.
 *
 * The first page is read as rows, before the response is started (an error there is still a
 * proper 4xx/5xx); the following chunks as the writer asks: lines written in the read worker, or
 * rows (label columns, BLOBs).
 *
 * @module
 */

import type { DatabaseEngine as Database } from "../db/engine.ts";
import type { BindParams, SqlValue } from "../db/values.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";
import { cursorPage } from "../render/row_stream.ts";
import { realColumnTypes } from "../render/json.ts";

/** Rows of a stream's first page: read as values, written on the main thread. */
const FIRST_PAGE_ROWS = 1000;

/** Rows per following chunk: only bytes cross threads, so chunks can be large. */
const EXPORT_CHUNK_ROWS = 5000;

/** The first page of a cursor export, and how its stream goes on. */
export interface CursorExport {
  /** The statement's columns. */
  columns: string[];
  rows: SqlValue[][];
  /** A token while more rows follow (the cursor knows where it is), else null. */
  next: string | null;
  /** `REAL` for the columns whose numbers were all stored as REAL so far (it grows). */
  column_types: Record<string, string>;
  fetchNext(
    next: string,
    text?: TextRowsOptions | null,
  ): Promise<{ rows: SqlValue[][]; next: string | null; lines: Uint8Array | null }>;
  closeStream(): void;
}

/**
 * Opens `sql` as an export cursor and reads its first page, or null without read workers (then
 * the caller pages through the query instead). A failure of the first page is thrown as
 * `Database.execute` would throw it.
 */
export async function openCursorExport(
  db: Database,
  sql: string,
  params: BindParams | null,
  custom_time_limit: number | null,
): Promise<CursorExport | null> {
  const cursor = db.exportCursor(sql, params, { custom_time_limit });
  if (!cursor) return null;
  const first = await cursor.next({ text: null, rows: FIRST_PAGE_ROWS });
  const columns = first.columns;
  const column_types = realColumnTypes(columns, first.real_columns);
  return {
    columns,
    rows: first.rows(),
    next: first.done ? null : "cursor",
    column_types,
    async fetchNext(_next, text = null) {
      const chunk = await cursor.next({
        text,
        rows: Math.max(EXPORT_CHUNK_ROWS, text?.limit ?? 0),
      });
      // Rows written here follow the types seen so far; the worker does the same for its lines.
      if (!chunk.lines) Object.assign(column_types, realColumnTypes(columns, chunk.real_columns));
      return cursorPage(chunk);
    },
    closeStream() {
      cursor.close();
    },
  };
}
