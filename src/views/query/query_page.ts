/**
 * What custom SQL and canned query pages share for HTML: the `query.html` rendering with its
 * cells, links, export menu and row total. Running the query is query_run.ts; the rows as JSON,
 * CSV and renderers send them, query_rows.ts.
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { displayRows } from "../../render/render_cell.ts";
import { queryBlobPath } from "./query_blob.ts";
import { renderPage } from "../../render/render_page.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { pagedQuerySql } from "./query_stream.ts";
import { queryLinks } from "./query_links.ts";
import type { ParameterField } from "./param_fields.ts";
import { exportMenu } from "../../render/export_menu.ts";
import { hasOrderBy } from "../../table/query_keyset.ts";
import { nextPosition, type QueryOutcome } from "./query_run.ts";

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
