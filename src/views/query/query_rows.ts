/**
 * A query page's rows as `respondWithRows` sends them (JSON in any `_shape`, CSV, renderers):
 * the body's keys, its `_extra=` values and the next page's URL. Apart from query_page.ts, which
 * renders the HTML page.
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { pluginRenderedCells } from "../../render/render_cell.ts";
import { databaseColor, requestExtra } from "../../render/page_extras.ts";
import { pathWithReplacedArgs } from "../../render/url_helpers.ts";
import type { QueryOutcome } from "./query_run.ts";

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
