/**
 * What custom SQL and canned query pages share: running a read query and sorting its failures
 * into "the user's SQL is wrong" (shown on the page, 400) and everything else (thrown on to the
 * error handler), the JSON body, cache headers and the `query.html` rendering.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { QueryError, QueryInterrupted } from "../../db/errors.ts";
import type { SqlValue } from "../../db/values.ts";
import { MagicParameterError } from "./magic_parameters.ts";
import { displayRows, pluginRenderedCells } from "../../render/render_cell.ts";
import { databaseColor, requestExtra } from "../../render/page_extras.ts";
import { queryBlobPath } from "./query_blob.ts";
import { realColumnTypes } from "../../render/json.ts";
import { renderPage } from "../../render/render_page.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import {
  pagedQuerySql,
  queryColumnNames,
  type QueryReadHow,
  readQueryPage,
  streamQuery,
} from "./query_stream.ts";
import { BadRequest } from "../../http/errors.ts";
import { requestTimeLeft } from "../../db/request_clock.ts";
import { queryLinks } from "./query_links.ts";
import type { ParameterField } from "./param_fields.ts";
import { pathWithReplacedArgs } from "../../render/url_helpers.ts";
import { wantsFullExport } from "../../render/output_format.ts";
import type { OutputRenderer } from "../../render/renderers.ts";
import { exportMenu } from "../../render/export_menu.ts";
import type { BindParams } from "../../db/values.ts";
import {
  hasOrderBy,
  keysetPageSql,
  keysetToken,
  parseKeysetToken,
} from "../../table/query_keyset.ts";
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
function nextPosition(
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

/** What a query page hands to `respondWithRows` besides its outcome. */
export interface QueryRowsOptions {
  database: string;
  query_name: string | null;
  sql: string;
  params: Record<string, unknown>;
  private: boolean;
  /** Canned query pages are cacheable; custom SQL pages are not (examples 32 and 33). */
  cache: boolean;
  /** The absolute URL of the next page ({@link nextPageUrl}), when the result goes on. */
  next_url?: string | null;
  /** `_extra=metadata`: the canned query's definition, or the database's metadata. */
  metadata: () => unknown;
  /** The extras that need the service and the request (`queryPageExtras`). */
  pageExtras?: Record<string, () => unknown>;
}

/**
 * The absolute URL of the page after `outcome`'s (its `_next` offset replaced), or null at the
 * end of the result or for a streamed export, which follows its pages itself.
 */
export function nextPageUrl(
  svc: ViewHost,
  request: Request,
  outcome: QueryOutcome | null,
): string | null {
  if (!outcome?.next || outcome.fetchNext || outcome.error !== null) return null;
  const path = pathWithReplacedArgs(request, { _next: outcome.next });
  return svc.absolute_url(request, path);
}

/**
 * The rows of a query for `respondWithRows`: JSON `{"ok", "rows", "truncated"}` in any `_shape`,
 * CSV and renderers; an SQL error is `{"ok": false, "rows": [], "error", "truncated": false}`
 * with status 400 (example 40). A result that goes on past `max_returned_rows` also answers
 * `next` (the offset of the following page, a `_next` argument) and `next_url`, as table pages do.
 */
export function queryRowsPage(outcome: QueryOutcome, options: QueryRowsOptions): RowsPage {
  const failed = outcome.error !== null;
  const next_url = options.next_url ?? null;
  const paging = next_url ? { next: outcome.next, next_url } : {};
  // Pages read in an order the server added say so (docs/json-api.md).
  const added = !failed && outcome.order_added ? { order_added: true } : {};
  return {
    view_name: "query",
    database: options.database,
    table: null,
    query_name: options.query_name,
    columns: outcome.columns,
    rows: outcome.rows,
    sql: options.sql,
    params: options.params,
    truncated: failed ? false : outcome.truncated,
    error: outcome.error,
    next: outcome.next ?? null,
    next_url,
    fetchNext: outcome.fetchNext,
    closeStream: outcome.closeStream,
    primary_keys: null,
    column_types: outcome.column_types,
    defaultKeys: { ok: !failed, ...paging, ...added },
    extras: {
      columns: () => outcome.columns,
      query: () => ({ sql: options.sql, params: options.params }),
      database: () => options.database,
      query_name: () => options.query_name,
      private: () => options.private,
      metadata: options.metadata,
      ...options.pageExtras,
    },
    // 1.0 writes a query page's extras after its rows.
    extrasAfterRows: true,
    status: failed ? 400 : 200,
    cache: options.cache,
    filename: options.query_name ?? options.database,
  };
}

/** A query page's `_extra=request`, `database_color` and `render_cell`, as 1.0 answers them. */
export function queryPageExtras(
  svc: ViewHost,
  request: Request,
  db: Database,
  outcome: Pick<QueryOutcome, "columns" | "rows">,
): Record<string, () => unknown> {
  return {
    request: () => requestExtra(request, new URLSearchParams(request.query_string)),
    database_color: () => databaseColor(db),
    render_cell: () =>
      pluginRenderedCells(
        { svc, request, database: db.name, table: null },
        outcome.columns,
        outcome.rows,
      ),
  };
}

/** Everything `query.html` reads besides the shared context (docs/templates.md). */
export interface QueryPageContext {
  sql: string;
  canned_query: string | null;
  canned_write: boolean;
  editable: boolean;
  hide_sql: boolean;
  show_hide_link?: string;
  /** `_hide_sql` / `_show_sql` when set: a hidden field of the GET form, to keep it on submit. */
  sql_toggle_arg?: string;
  edit_sql_url?: string;
  form_action: string;
  named_parameter_values: Record<string, string>;
  /** The parameters' fields with labels, types and choices (canned and stored queries). */
  parameter_fields?: ParameterField[];
  /** Null until the query ran (the template then shows no results area). */
  outcome: QueryOutcome | null;
  metadata?: Record<string, unknown>;
  renderers: Record<string, string>;
  /** The named parameters the query ran with (for counting a truncated result). */
  params?: Record<string, unknown>;
  private: boolean;
  query_ms?: number;
  /** The next page of a result longer than `max_returned_rows` ({@link nextPageUrl}). */
  next_url?: string | null;
  /** "Save this query" (custom SQL, for actors with `store-query`). */
  store_query_url?: string | null;
  /** `/-/execute-write` for actors with `execute-write-sql` on a mutable database (write mode). */
  execute_write_url?: string | null;
  /** "Edit query" and "Delete query" on a stored query's page, for who may. */
  edit_query_url?: string | null;
  delete_query_url?: string | null;
}

/** Renders `query.html` (or its per-database / per-query overrides). */
export async function renderQueryPage(
  svc: ViewHost,
  request: Request,
  db: Database,
  context: QueryPageContext,
  { status = 200, headers = {} }: { status?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  const { outcome, ...rest } = context;
  const names = { database: db.name, query: context.canned_query };
  const templates = context.canned_query
    ? templateCandidates("canned_query", names)
    : templateCandidates("query", names);
  const columns = outcome && outcome.error === null ? outcome.columns : null;
  // Cells that come straight from a table column link as on the table page (query_links.ts).
  const links = columns && columns.length
    ? await queryLinks(svc, request.actor, db, context.sql, columns)
    : null;
  // The same cells as table pages, with `table` null as the spec says for query results.
  const display_rows = outcome
    ? await displayRows(
      {
        svc,
        request,
        database: db.name,
        table: null,
        truncate: Number(svc.setting("truncate_cells_html") ?? 0),
        column_types: outcome.column_types,
        column_links: links?.links,
        // Each BLOB cell links to its `.blob` download (`query_blob.ts`).
        blobUrl: !context.canned_write
          ? (row, column) => {
            const value = row[column];
            return value instanceof Uint8Array ? queryBlobPath(request, column, value) : null;
          }
          : undefined,
      },
      outcome.columns,
      outcome.rows,
    )
    : [];
  const page: Record<string, unknown> = {
    ...rest,
    // Where this page starts in the whole result (`_next`), for "Rows 1,001–2,000 of 5,000".
    row_offset: outcome && outcome.error === null ? nextPosition(request).offset : 0,
    // Pages counted by offset (the order is not provably total) say so (the template's note).
    offset_pages: Boolean(outcome?.next && /^\d+$/.test(outcome.next)),
    // Pages of a query without ORDER BY say whose order they follow (the template's note).
    unordered: !(hasOrderBy(context.sql) ?? /\border\s+by\b/i.test(context.sql)),
    // Pages read in an order the server added say which (the template's note).
    order_added: Boolean(outcome?.error === null && outcome.order_added),
    database: db.name,
    display_rows,
    truncated: outcome?.truncated ?? false,
    error: outcome?.error ?? null,
  };
  if (columns) page.columns = columns;
  if (links) page.column_details = links.columns;
  if (!context.metadata) delete page.metadata;
  if (columns && !context.canned_write) {
    Object.assign(page, await exportContext(svc, request, db, context, outcome!));
  }
  const query_name = context.canned_query;
  page.query_actions = await actionLinks(svc, "query_actions", {
    actor: request.actor,
    database: db.name,
    query_name,
    request,
    sql: context.sql,
    params: context.params ?? {},
  });
  const top = query_name
    ? await topHtml(svc, "top_canned_query", { request, database: db.name, query_name })
    : await topHtml(svc, "top_query", { request, database: db.name, sql: context.sql });
  page[query_name ? "top_canned_query" : "top_query"] = () => top;
  return await renderPage(svc, request, templates, page, {
    view_name: "query",
    database: db.name,
    columns,
    status,
    headers,
  });
}

/**
 * The export menu and the row total of a query page. A result cut at `max_returned_rows` is
 * counted (briefly: a slow count just says "more than"), so the page and the menu say how many
 * rows the result holds of how many.
 */
async function exportContext(
  svc: ViewHost,
  request: Request,
  db: Database,
  context: QueryPageContext,
  outcome: QueryOutcome,
) {
  const total_rows = outcome.truncated || request.args.get("_next")
    ? await countRows(db, context.sql, context.params ?? {})
    : outcome.rows.length;
  const { json: _json, ...plugin_formats } = context.renderers;
  const export_menu = exportMenu(request, {
    page_rows: outcome.rows.length,
    total_rows,
    can_stream: Boolean(svc.setting("allow_csv_stream")) && pagedQuerySql(context.sql, 0) !== null,
    plugin_formats,
  });
  return {
    export_menu,
    total_rows,
    json_url: export_menu.page.find((link) => link.format === "json")?.base_url ?? null,
  };
}

/** How many rows `sql` returns, or null when counting fails or takes over half a second. */
async function countRows(
  db: Database,
  sql: string,
  params: Record<string, unknown>,
): Promise<number | null> {
  const wrapped = pagedQuerySql(sql, 0, null, db.dialect);
  if (wrapped === null) return null;
  try {
    const results = await db.execute(
      `select count(*) from ${db.dialect.subquery(wrapped, "counted")}`,
      params as never,
      { custom_time_limit: 500, log_sql_errors: false },
    );
    return Number(results.rows[0]?.[0] ?? 0);
  } catch {
    return null;
  }
}

/** The page outcome of a query stopped by the time limit. */
export function interruptedOutcome(error: QueryInterrupted): QueryOutcome {
  return { columns: [], rows: [], truncated: false, error: error.message };
}
