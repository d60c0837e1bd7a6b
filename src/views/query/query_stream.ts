/**
 * `_stream=on` for custom SQL and canned queries (`.csv`, `.tsv`, `.ndjson`): every row, not just
 * the first `max_returned_rows`, in constant memory. The validated SELECT is wrapped as
 * `select * from (<sql>) limit -1 offset N` and read from one cursor in a read worker
 * (`views/export_cursor.ts`): one statement stepped to its end, so a query without a total order
 * (`order by random()`, ties) still gives every row exactly once. Without read workers it is read
 * one page (`max_returned_rows` rows, each under the time limit) at a time by offset instead.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../../db/dialect.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { QueryError } from "../../db/errors.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import type { TextRowsOptions } from "../../util/text_rows.ts";
import { realColumnTypes } from "../../render/json.ts";
import { openCursorExport } from "../export_cursor.ts";

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

const LEADING_COMMENTS = /^(\s*(--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/))*\s*/;

/**
 * `select * from (<sql>) limit -1 offset <offset>` (with `order by <order>` before the limit when
 * given; in `dialect`, SQLite's when not given), or null for `EXPLAIN`, which cannot be a
 * subquery. Trailing semicolons go; the SQL sits on its own lines so a trailing `--` comment
 * cannot swallow the closing parenthesis.
 */
export function pagedQuerySql(
  sql: string,
  offset: number,
  order: string | null = null,
  dialect: SqlDialect = sqliteDialect,
): string | null {
  if (/^explain\b/i.test(sql.replace(LEADING_COMMENTS, ""))) return null;
  const body = sql.trim().replace(/[;\s]+$/, "");
  const orderBy = order ? ` order by ${order}` : "";
  return `select * from ${dialect.subquery(`\n${body}\n`)}${orderBy}${dialect.offsetOnly(offset)}`;
}

/** One page of a query read at an offset of its wrapped statement. */
/** How a query's pages are read. */
export interface QueryReadHow {
  /** The SQL is a stored query's owner's (`Database.execute`'s `owner_sql`). */
  owner_sql?: boolean;
  /**
   * Its answers may be kept and shared (`db/query_cache.ts`): the SQL gives the same rows for
   * the same data (`Database.is_sql_repeatable`).
   */
  cache?: boolean;
}

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
 * duplicate column names are the query's own (see {@link queryColumnNames}). `order` is the
 * stable order the server adds (`table/query_keyset.ts` `stableOrderBy`), the same on every page.
 */
export async function readQueryPage(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  offset: number,
  custom_time_limit: number | null,
  fixColumns = true,
  how: QueryReadHow = {},
  order: string | null = null,
): Promise<QueryPageRead | null> {
  const paged = pagedQuerySql(sql, offset, order, db.dialect);
  if (paged === null) return null;
  // execute() stops at max_returned_rows and says whether more rows follow.
  const results = await db.execute(paged, params as BindParams, {
    custom_time_limit,
    log_sql_errors: false,
    owner_sql: how.owner_sql,
    cache: how.cache,
  });
  const rows = results.values;
  const next = results.truncated && rows.length ? String(offset + rows.length) : null;
  const columns = fixColumns
    ? await queryColumnNames(db, sql, params, results.columns, how)
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
export async function queryColumnNames(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  wrapped: string[],
  how: QueryReadHow = {},
): Promise<string[]> {
  if (!wrapped.some((name) => /:\d+$/.test(name))) return wrapped;
  const { owner_sql, cache } = how;
  return (await db.execute(sql, params as BindParams, { page_size: 1, owner_sql, cache })).columns;
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
  const wrapped = pagedQuerySql(sql, 0, null, db.dialect);
  if (wrapped === null) return null;
  try {
    const cursor = await openCursorExport(db, wrapped, params as BindParams, custom_time_limit);
    if (cursor) {
      const columns = await queryColumnNames(db, sql, params, cursor.columns);
      return { ...cursor, columns, truncated: cursor.next !== null };
    }
    return await pagedStream(db, sql, params, custom_time_limit);
  } catch (error) {
    if (!(error instanceof QueryError) || error.storage_failure) throw error;
    // The SQL as written reports the user's own error in their words. Unless it runs fine: then
    // the failure is in a row past its first page, and is this export's answer (answering that
    // first page instead would be a short export that looks whole).
    const failsAsWritten = await db.execute(sql, params as BindParams, {
      custom_time_limit,
      log_sql_errors: false,
    }).then(() => false, () => true);
    if (failsAsWritten) return null;
    throw error;
  }
}

/** Without read workers: the stream reads page after page by offset. */
async function pagedStream(
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
  const first = await page(0);
  if (first === null) return null;
  const columns = await queryColumnNames(db, sql, params, first.columns);
  return {
    ...first,
    columns,
    column_types,
    async fetchNext(next: string) {
      const following = await page(Number(next));
      return { rows: following?.rows ?? [], next: following?.next ?? null };
    },
    closeStream() {},
  };
}
