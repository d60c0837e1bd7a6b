/**
 * `/<db>/<table>`: a table or SQL view as HTML, JSON, CSV/TSV/NDJSON or a plugin format. The view
 * reads top to bottom as the steps it takes: resolve and check permissions → parse the request and
 * build the SQL (`table_query.ts`) → run one page → gather extras on demand (`table_extras.ts`) →
 * respond (`render/output_format.ts`, with the HTML page from `table_html.ts`).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { Forbidden } from "../../http/errors.ts";
import type { SqlValue } from "../../db/values.ts";
import { rowPathOf } from "../../util/tilde.ts";
import {
  ensureKnownFormat,
  requestedFormat,
  respondWithRows,
  wantsFullExport,
} from "../../render/output_format.ts";
import { queryPairs } from "../../http/request_state.ts";
import { parseTableRequest } from "../../table/table_request.ts";
import { jsonRowsRequest } from "../../render/json_response.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import {
  exportFromCursor,
  exportPages,
  fetchPage,
  pageColumnTypes,
  prepareTable,
  type TableContext,
} from "./table_query.ts";
import { addPageExtras, autoExtras, rowLabels, tableExtras } from "./table_extras.ts";
import { tableHtml } from "./table_html.ts";
import { filterFormRedirect } from "./table_form.ts";

/** GET `/<db>/<table>` for tables and SQL views. */
export async function tableView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table, is_view } = await svc.resolve_table(request);
  const [visible, isPrivate] = await svc.check_visibility(request.actor, {
    action: "view-table",
    resource: [db.name, table],
  });
  if (!visible) throw new Forbidden("You do not have permission to view this table");
  ensureKnownFormat(svc, request);
  const redirect = filterFormRedirect(request);
  if (redirect) return redirect;

  // The query string, read once: everything below takes `params`.
  const format = requestedFormat(request);
  const params = parseTableRequest(queryPairs(request), {
    format,
    full_export: wantsFullExport(request, format, svc.registered.renderers),
  });
  const ctx = await prepareTable(svc, request, { db, table, is_view, private: isPrivate }, params);
  const columns = ctx.query.columns;
  const labels = rowLabels(ctx, columns, false);
  // A view has no primary key (as the reference reports it): `_shape=object` says so.
  const primary_keys = ctx.facts.pks;
  const column_types = ctx.facts.column_types ?? {};
  // A streamed export reads every row, its first page included, from one cursor.
  const streamed = params.full_export ? await exportFromCursor(ctx) : null;
  const page = streamed?.page ?? await fetchPage(
    ctx,
    ctx.query,
    jsonRowsRequest(
      params.json,
      { columns, primary_keys, column_types, labels },
      ctx.query.page_size,
    ),
  );
  const extras = tableExtras(ctx, page);
  const rowsPage: RowsPage = {
    view_name: "table",
    database: db.name,
    table,
    query_name: null,
    columns,
    get rows() {
      return page.rows;
    },
    encoded: page.encoded,
    sql: ctx.query.sql,
    params: ctx.query.params,
    truncated: false,
    error: null,
    next: page.next,
    next_url: page.next_url,
    primary_keys,
    // 1.0's keys: `next_url` always there (null on the last page), not only with `_extra=`.
    defaultKeys: { ok: true, next: page.next, next_url: page.next_url },
    extras,
    autoExtras: autoExtras(ctx),
    cache: true,
    column_types: pageColumnTypes(ctx, page),
    labels,
    format,
    json_args: params.json,
    blobUrl: (row, column) => blobPath(ctx, row, column),
    ...(streamed?.more ?? exportPages(ctx)),
  };
  addPageExtras(extras, ctx, rowsPage);
  return await respondWithRows(
    svc,
    request,
    rowsPage,
    () => tableHtml(ctx, page, extras, rowsPage),
  );
}

/** `/<db>/<table>/<pk>.blob?_blob_column=<col>` for a BLOB cell of a table row. */
export function blobPath(ctx: TableContext, row: SqlValue[], column: string): string | null {
  if (ctx.is_view) return null;
  const keys = ctx.query.primary_keys;
  const indexes = keys.map((key) => ctx.query.columns.indexOf(key));
  if (indexes.some((i) => i < 0)) return null;
  const pk = rowPathOf(indexes.map((i) => row[i]));
  const base = String(ctx.svc.urls.table(ctx.db.name, ctx.table));
  return `${base}/${pk}.blob?_blob_column=${encodeURIComponent(column)}`;
}
