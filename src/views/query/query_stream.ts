/**
 * `_stream=on` for custom SQL and canned queries (`.csv`, `.tsv`, `.ndjson`): every row, not just
 * the first `max_returned_rows`, in constant memory. The validated SELECT is wrapped as
 * `select * from (<sql>) limit -1 offset N` and read one page (`max_returned_rows` rows, each page
 * under the time limit) at a time as the client pulls. Arbitrary SQL has no key to continue
 * from, so pages are addressed by offset — every page, the first included, runs the same
 * wrapped statement, so they share one plan and one row order.
 *
 * @module
 */

import type { Database } from "../../db/database.ts";
import { QueryError } from "../../db/errors.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import type { PoolCursor } from "../../db/pool.ts";
import type { TextRowsOptions } from "../../util/text_rows.ts";
import { cursorPage } from "../../render/row_stream.ts";
import { realColumnTypes } from "../../render/json.ts";

/** One page of a streamed query and the offset of the next, or null at the end. */
export interface StreamPage {
  readonly rows: SqlValue[][];
  next: string | null;
  /** The page as export lines, written by the read worker (then `rows` is read only if needed). */
  lines?: Uint8Array | null;
}

/** The first page plus what the stream needs to continue. */
export interface StreamedQuery extends StreamPage {
  columns: string[];
  truncated: boolean;
  /**
   * `REAL` for the columns whose numbers were all stored as REAL in the pages read so far (it
   * grows as pages are read, before each is written): their whole numbers print as `12.0`.
   */
  column_types: Record<string, string>;
  fetchNext(next: string, text?: TextRowsOptions | null): Promise<StreamPage>;
  /** Releases the export's cursor (see `fetchNext`). */
  closeStream(): void;
}

/** Rows per chunk of an export cursor: only bytes cross threads, so chunks can be large. */
const EXPORT_CHUNK_ROWS = 5000;

const LEADING_COMMENTS = /^(\s*(--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/))*\s*/;

/**
 * `select * from (<sql>) limit -1 offset <offset>`, or null for `EXPLAIN`, which cannot be a
 * subquery. Trailing semicolons go; the SQL sits on its own lines so a trailing `--` comment
 * cannot swallow the closing parenthesis.
 */
export function pagedQuerySql(sql: string, offset: number): string | null {
  if (/^explain\b/i.test(sql.replace(LEADING_COMMENTS, ""))) return null;
  const body = sql.trim().replace(/[;\s]+$/, "");
  return `select * from (\n${body}\n) limit -1 offset ${offset}`;
}

/** One page of a query read at an offset of its wrapped statement. */
export interface QueryPageRead {
  columns: string[];
  rows: SqlValue[][];
  /** The offset of the following page, or null when this page holds the last row. */
  next: string | null;
  truncated: boolean;
  column_types: Record<string, string>;
}

/**
 * The `max_returned_rows` rows of `sql` from `offset` on, read through the wrapped statement
 * (null for SQL that cannot be wrapped). Every page of a result, the first included, runs the
 * same statement, so the pages share one plan and one row order: reading them one after another
 * gives every row exactly once while the data stays the same. With `fixColumns` the result's
 * duplicate column names are the query's own (see {@link queryColumnNames}).
 */
export async function readQueryPage(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  offset: number,
  custom_time_limit: number | null,
  fixColumns = true,
): Promise<QueryPageRead | null> {
  const paged = pagedQuerySql(sql, offset);
  if (paged === null) return null;
  // execute() stops at max_returned_rows and says whether more rows follow.
  const results = await db.execute(paged, params as BindParams, {
    custom_time_limit,
    log_sql_errors: false,
  });
  const rows = results.values;
  const next = results.truncated && rows.length ? String(offset + rows.length) : null;
  const columns = fixColumns
    ? await queryColumnNames(db, sql, params, results.columns)
    : results.columns;
  return {
    columns,
    rows,
    next,
    truncated: results.truncated,
    column_types: realColumnTypes(columns, results.real_columns),
  };
}

/**
 * The query's own column names: `select *` over it renames duplicates (`a`, `a:1`), so when a
 * wrapped result shows such a name the query runs once more for one row to read its header.
 */
async function queryColumnNames(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  wrapped: string[],
): Promise<string[]> {
  if (!wrapped.some((name) => /:\d+$/.test(name))) return wrapped;
  return (await db.execute(sql, params as BindParams, { page_size: 1 })).columns;
}

/**
 * Runs the first page of `sql` as a stream, or returns null when the SQL cannot be wrapped (or
 * fails wrapped): the caller then runs it as written, which reports the user's own error.
 */
export async function streamQuery(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  custom_time_limit: number | null,
): Promise<StreamedQuery | null> {
  const column_types: Record<string, string> = {};
  const page = async (offset: number) => {
    const read = await readQueryPage(db, sql, params, offset, custom_time_limit, false);
    if (read) Object.assign(column_types, read.column_types);
    return read;
  };
  let first;
  try {
    first = await page(0);
  } catch (error) {
    if (error instanceof QueryError && !error.storage_failure) return null;
    throw error;
  }
  if (first === null) return null;
  const columns = await queryColumnNames(db, sql, params, first.columns);
  // After the first page, when the read worker writes the lines, every other row comes from one
  // cursor over `... limit -1 offset <first page>`: the query runs once, not once per page with
  // an ever larger OFFSET. Otherwise (BLOB-free or not, without workers) page by page.
  let cursor: PoolCursor | null = null;
  let tried = false;
  return {
    ...first,
    columns,
    column_types,
    async fetchNext(next: string, text: TextRowsOptions | null = null) {
      if (text && !tried) {
        tried = true;
        const paged = pagedQuerySql(sql, Number(next));
        cursor = paged === null ? null : db.exportCursor(paged, params as BindParams, {
          text,
          rows: Math.max(EXPORT_CHUNK_ROWS, text.limit),
          custom_time_limit,
        });
      }
      if (cursor) return cursorPage(await cursor.next());
      const following = await page(Number(next));
      return { rows: following?.rows ?? [], next: following?.next ?? null };
    },
    closeStream() {
      cursor?.close();
    },
  };
}
