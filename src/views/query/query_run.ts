/**
 * Running the read query of a custom SQL or canned query page: the page `_next` asks for (by
 * offset, or by key where the query's order is total), a stream for a full export, and the
 * query's failures sorted into "the user's SQL is wrong" (shown on the page, 400) and everything
 * else (thrown on to the error handler). Apart from query_page.ts, which renders what this reads.
 *
 * @module
 */
import type { Request } from "../../http/request.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { QueryError, QueryInterrupted } from "../../db/errors.ts";
import type { SqlValue } from "../../db/values.ts";
import { MagicParameterError } from "./magic_parameters.ts";
import { realColumnTypes } from "../../render/json.ts";
import { queryColumnNames, type QueryReadHow, readQueryPage, streamQuery } from "./query_stream.ts";
import { BadRequest } from "../../http/errors.ts";
import { requestTimeLeft } from "../../db/request_clock.ts";
import { wantsFullExport } from "../../render/output_format.ts";
import type { OutputRenderer } from "../../render/renderers.ts";
import type { BindParams } from "../../db/values.ts";
import { keysetPageSql, keysetToken, parseKeysetToken } from "../../table/query_keyset.ts";
import { type KeysetPlan, keysetPlan, queryBody, stableOrder } from "./query_keyset.ts";

/** The outcome of running a query: rows, or the error message to show. */
export interface QueryOutcome {
  columns: string[];
  rows: SqlValue[][];
  truncated: boolean;
  error: string | null;
  /** `REAL` for the columns whose numbers were all stored as REAL: `12.0` stays `12.0`. */
  column_types?: Record<string, string>;
  /** With `_stream=on` on a text export: the next page's offset and how to fetch it. */
  next?: string | null;
  fetchNext?: RowsPage["fetchNext"];
  closeStream?: () => void;
  /**
   * The query's order is not total, so its pages are read in one the server adds: its own ORDER
   * BY terms, then every result column (`select * from (<sql>) order by …, 1, 2, …`).
   */
  order_added?: boolean;
}

/**
 * Runs a read query. SQLite's own errors (syntax, missing table, a write refused by the
 * read-only connection) and unfillable magic parameters become `error`; a time-limit overrun
 * and anything unexpected are thrown.
 */
export async function runReadQuery(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  request: Request,
  renderers?: ReadonlyMap<string, OutputRenderer>,
  { owner_sql = false }: { owner_sql?: boolean } = {},
): Promise<QueryOutcome> {
  // Answers of SQL that gives the same rows for the same data are kept and shared: sixteen
  // clients asking one count at once run it once (issue 42), and an immutable file's answer
  // never runs again. An owner's stored query runs under its owner's rights: never shared.
  const how = { owner_sql, cache: !owner_sql && await db.is_sql_repeatable(sql) };
  const limit = request.args.get("_timelimit");
  const custom_time_limit = limit && /^\d+$/.test(limit) ? Number(limit) : null;
  const next = nextPosition(request);
  const offset = next.offset;
  try {
    if (wantsFullExport(request, undefined, renderers)) {
      const streamed = await streamQuery(db, sql, params, custom_time_limit);
      if (streamed) return { ...streamed, error: null };
    }
    if (next.values) {
      const plan = await keysetPlan(db, sql);
      if (!plan) throw new BadRequest("_next cannot page this query by key: its order has changed");
      return {
        ...await readKeysetPage(db, sql, params, plan, next, custom_time_limit, how),
        error: null,
      };
    }
    // A later offset page of a query whose order is not total is read in the order the server
    // adds, as its first page was (below).
    const order = offset > 0 && !next.as_written && !await keysetPlan(db, sql)
      ? await stableOrder(db, sql, { params })
      : null;
    const page = await readPage(db, sql, params, offset, custom_time_limit, how, order);
    if (page && next.as_written && page.next !== null) page.next = `u${page.next}`;
    if (page) {
      // A result that goes on, in a total order, goes on by key from its first page; in any
      // other order its first page is read again in the order the server adds.
      if (page.next !== null && offset === 0 && page.rows.length) {
        const plan = await keysetPlan(db, sql);
        const rows = page.rows;
        const added = plan ? null : await stableOrder(db, sql, { columns: page.columns });
        if (plan) {
          page.next = keysetToken(rows.length, plan.positions.map((p) => rows.at(-1)![p]));
        } else if (added) {
          // At most half the time left, so a sort that cannot finish leaves time for the page.
          const left = db.time_limit_ms === null ? null : requestTimeLeft(db.time_limit_ms);
          const budget = left === null
            ? custom_time_limit
            : Math.max(1, Math.min(Math.floor(left / 2), custom_time_limit ?? Infinity));
          const ordered = await readPage(db, sql, params, 0, budget, how, added)
            .catch((error) => {
              if (error instanceof QueryInterrupted) return null;
              // Another engine may have no order for a column's type (PostgreSQL's `json`).
              if (db.dialect.name !== "sqlite" && error instanceof QueryError) return null;
              throw error;
            });
          if (ordered) return { ...ordered, order_added: true, error: null };
          // Sorting the whole result did not fit its time limit (a big table read without
          // ORDER BY): its pages go on in the order SQLite reads it, as the `u` token says.
          return { ...page, next: `u${page.next}`, error: null };
        }
      }
      return { ...page, order_added: order !== null || undefined, error: null };
    }
    if (offset > 0) throw new BadRequest("_next cannot page this query: it is not a SELECT");
    const results = await db.execute(sql, params as never, {
      custom_time_limit,
      log_sql_errors: false,
      owner_sql,
      cache: how.cache,
    });
    return {
      columns: results.columns,
      rows: results.values,
      truncated: results.truncated,
      column_types: realColumnTypes(results.columns, results.real_columns),
      error: null,
    };
  } catch (error) {
    if (
      (error instanceof QueryError && !error.storage_failure) ||
      error instanceof MagicParameterError
    ) {
      return { columns: [], rows: [], truncated: false, error: error.message };
    }
    throw error;
  }
}

/**
 * Where `_next` says the page starts: an offset (0 without one), or a keyset token's offset and
 * the last row's ORDER BY values (`table/query_keyset.ts`); a 400 for anything else.
 */
export function nextPosition(
  request: Request,
): { offset: number; values?: SqlValue[]; as_written?: boolean } {
  const next = request.args.get("_next");
  if (next === null || next === "") return { offset: 0 };
  if (/^\d+$/.test(next)) return { offset: Number(next) };
  // `u<offset>`: pages of a result whose added order could not be read in time (below).
  if (/^u\d+$/.test(next)) return { offset: Number(next.slice(1)), as_written: true };
  const keyset = parseKeysetToken(next);
  if (keyset) return keyset;
  throw new BadRequest(
    "_next must be an integer offset or a key token (k…), as a page's next_url gives it",
  );
}

/** The page after the row whose ORDER BY values `next` holds, read by key. */
async function readKeysetPage(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  plan: KeysetPlan,
  next: { offset: number; values?: SqlValue[] },
  custom_time_limit: number | null,
  how: QueryReadHow,
): Promise<Omit<QueryOutcome, "error">> {
  const values = next.values!;
  if (values.length !== plan.terms.length) {
    throw new BadRequest("_next does not fit this query's ORDER BY: take it from next_url");
  }
  const paged = keysetPageSql(queryBody(sql), plan.names, plan.terms, values);
  const results = await db.execute(paged.sql, { ...params, ...paged.params } as BindParams, {
    custom_time_limit,
    log_sql_errors: false,
    owner_sql: how.owner_sql,
    cache: how.cache,
  });
  const rows = results.values;
  const last = rows.at(-1);
  const columns = await queryColumnNames(db, sql, params, results.columns, how);
  const offset = next.offset + rows.length;
  return {
    columns,
    rows,
    truncated: results.truncated,
    next: results.truncated && last
      ? keysetToken(offset, plan.positions.map((p) => last[p]))
      : null,
    column_types: realColumnTypes(columns, results.real_columns),
  };
}

/**
 * A page of the query through its wrapped statement, or null when it cannot be wrapped, or when
 * the first page fails wrapped: the caller then runs the SQL as written, so the error message
 * is about the user's SQL, not the wrapper. A later page's error is the page's error.
 */
async function readPage(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
  offset: number,
  custom_time_limit: number | null,
  how: QueryReadHow,
  order: string | null = null,
): Promise<Omit<QueryOutcome, "error"> | null> {
  try {
    return await readQueryPage(db, sql, params, offset, custom_time_limit, true, how, order);
  } catch (error) {
    if (offset === 0 && error instanceof QueryError && !error.storage_failure) return null;
    throw error;
  }
}

/** The page outcome of a query stopped by the time limit. */
export function interruptedOutcome(error: QueryInterrupted): QueryOutcome {
  return { columns: [], rows: [], truncated: false, error: error.message };
}
