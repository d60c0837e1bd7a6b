/**
 * Table page, HTML: fills `table.html` as docs/templates.md describes — the count and human
 * description, the filter form (current filters, operators, sort, search box), facets and
 * suggestions, the rows with rendered cells (row links, foreign-key labels, `render_cell` hooks),
 * the next-page link, the definition, table actions, the export menu, "View and edit SQL" and a
 * notice of columns hidden with `_col` / `_nocol`.
 *
 * @module
 */

import type { Response } from "../../http/response.ts";
import { rowPathOf } from "../../util/tilde.ts";
import { bodyClass } from "../../render/css_class.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { type CellContext, displayRows } from "../../render/render_cell.ts";
import { formatLinks, rendererPaths } from "../../render/output_format.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import { exportMenu } from "../../render/export_menu.ts";
import { pathWithReplacedArgs } from "../../table/url_args.ts";
import { renderPage } from "../../render/render_page.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";
import { typedColumns } from "../typed_columns.ts";
import { currentFilters, lookups } from "./table_form.ts";
import { effectiveSort, sortRows, withSortLinks } from "./table_sort.ts";
import { displayColumns, type Extras, rowLabels } from "./table_extras.ts";
import { type FetchedPage, pageColumnTypes, type TableContext } from "./table_query.ts";
import { cellForeignKeys } from "./table_foreign_keys.ts";

/** Renders the HTML table page. */
export async function tableHtml(
  ctx: TableContext,
  page: FetchedPage,
  extras: Extras,
  rowsPage: RowsPage,
): Promise<Response> {
  const { svc, request, db, table, query } = ctx;
  const names = { database: db.name, table };
  const rows = await renderedRows(ctx, page);
  // The default order (primary key or rowid) shows as the current sort, as the reference does.
  const sortedBy = effectiveSort(ctx);
  // A SQL view's menu: `view_actions`, then `table_actions` (which spec-era plugins answer for
  // views too).
  const actions = [
    ...ctx.is_view
      ? await actionLinks(svc, "view_actions", {
        actor: request.actor,
        database: db.name,
        view: table,
        request,
      })
      : [],
    ...await actionLinks(svc, "table_actions", {
      actor: request.actor,
      database: db.name,
      table,
      request,
    }),
  ];
  const top = await topHtml(svc, "top_table", { request, database: db.name, table });
  const count = (await extras.count()) as number | null;
  const { json: _json, ...pluginFormats } = await rendererPaths(svc, request, rowsPage);
  const export_menu = exportMenu(request, {
    page_rows: page.rows.length,
    total_rows: count,
    total_at_least: Boolean(await extras.count_truncated()),
    can_stream: Boolean(svc.setting("allow_csv_stream")),
    labels: ctx.foreign_keys.length > 0,
    plugin_formats: pluginFormats,
  });
  const context: Record<string, unknown> = {
    ...query.extra_context,
    database: db.name,
    table,
    is_view: ctx.is_view,
    private: ctx.private,
    request,
    body_class: bodyClass("table", names),
    table_url: String(svc.urls.table(db.name, table)),
    columns: rows.columns,
    display_columns: rows.display_columns,
    display_rows: rows.display_rows,
    row_paths: rows.row_paths,
    table_rows_template: svc.templates.select(templateCandidates("table_rows", names)),
    primary_keys: ctx.facts.pks,
    count,
    count_truncated: await extras.count_truncated(),
    human_description_en: query.human_description_en,
    // `sort` / `sort_desc` name the leading key; `sorts` lists every key, for the form's rows.
    sort: sortedBy.items[0]?.desc === false ? sortedBy.items[0].column : null,
    sort_desc: sortedBy.items[0]?.desc ? sortedBy.items[0].column : null,
    // The form shows only the sort asked for, so applying it does not add the default key.
    sorts: sortRows(query.sort),
    sortable_columns: rows.display_columns.filter((c) => c.sortable).map((c) => c.name),
    filters: currentFilters(query.filters),
    filter_columns: query.use_rowid ? ["rowid", ...ctx.facts.columns] : ctx.facts.columns,
    lookups: lookups(),
    form_hidden_args: await extras.form_hidden_args(),
    supports_search: Boolean(query.extra_context.supports_search),
    // The search box's parameter: full-text `_search`, or `_q` (text columns containing it).
    search_field: query.extra_context.supports_search
      ? "_search"
      : query.extra_context.supports_quick_search
      ? "_q"
      : null,
    search: (query.extra_context.search as string | undefined) ?? ctx.params.search ?? "",
    sorted_facet_results: await extras.sorted_facet_results(),
    suggested_facets: await extras.suggested_facets(),
    next_url: page.next_url,
    table_definition: await extras.table_definition(),
    view_definition: await extras.view_definition(),
    table_actions: actions,
    top_table: () => top,
    renderers: await formatLinks(svc, request, rowsPage),
    export_menu,
    json_url: export_menu.page.find((link) => link.format === "json")?.base_url ?? null,
    edit_sql_url: await editSqlUrl(ctx),
    facets_timed_out: await extras.facets_timed_out(),
    ...hiddenColumns(ctx),
  };
  const response = await renderPage(svc, request, templateCandidates("table", names), context, {
    view_name: "table",
    database: db.name,
    table,
    columns: query.columns,
  });
  // Like the JSON, the page names its next one for crawlers and scripts (RFC 8288).
  if (page.next_url) response.headers["link"] = `<${page.next_url}>; rel="next"`;
  return response;
}

/**
 * "View and edit SQL": the custom SQL page with the SQL this page ran and its parameters, for
 * actors who may run SQL; null otherwise.
 */
async function editSqlUrl(ctx: TableContext): Promise<string | null> {
  const { svc, request, db, query } = ctx;
  if (!await svc.permission_allowed(request.actor, "execute-sql", db.name)) return null;
  const args = new URLSearchParams({ sql: query.sql });
  for (const [name, value] of Object.entries(query.params)) {
    if (value !== null && value !== undefined) args.set(name, String(value));
  }
  return `${svc.urls.database(db.name)}?${args}`;
}

/** Columns left out with `_col` / `_nocol`, and the page with all of them back. */
function hiddenColumns(ctx: TableContext) {
  const shown = new Set(ctx.query.columns);
  const hidden_columns = ctx.facts.columns.filter((column) => !shown.has(column));
  const show_all_columns_url = pathWithReplacedArgs(
    ctx.request.path,
    [...ctx.params.pairs],
    [["_col", null], ["_nocol", null]],
  );
  return { hidden_columns, show_all_columns_url };
}

/**
 * Rows with every cell rendered; tables with a compound key, and rowid tables (as in the
 * reference), get a leading `Link` column.
 */
async function renderedRows(ctx: TableContext, page: FetchedPage) {
  const { svc, request, db, table, query } = ctx;
  const values = page.rows;
  const keys = query.primary_keys;
  const compound = !ctx.is_view && (keys.length > 1 || query.use_rowid);
  const labels = await rowLabels(ctx, query.columns, true).lookup(values);
  // The table's path once per page, not once per row.
  const tablePath = String(svc.urls.table(db.name, table));
  const rowPath = (row: Record<string, unknown>) =>
    `${tablePath}/${rowPathOf(keys.map((k) => row[k]))}`;
  const cellContext: CellContext = {
    svc,
    request,
    database: db.name,
    table,
    truncate: Number(svc.setting("truncate_cells_html") ?? 0),
    column_types: pageColumnTypes(ctx, page),
    typed_columns: await typedColumns(svc, db.name, table),
    foreign_keys: cellForeignKeys(ctx.foreign_keys, ctx.compound_keys),
    labels,
    link_columns: ctx.is_view ? [] : compound ? ["Link"] : keys,
    rowUrl: ctx.is_view ? undefined : rowPath,
    blobUrl: (row, column) => {
      if (ctx.is_view) return null;
      return `${rowPath(row)}.blob?_blob_column=${encodeURIComponent(column)}`;
    },
  };
  const display_columns = withSortLinks(ctx, displayColumns(ctx));
  // Each row's key as in its URL: the editing script (static/table-edit.js) finds rows by it.
  const keyIndexes = keys.map((key) => query.columns.indexOf(key));
  const row_paths = ctx.is_view || keyIndexes.includes(-1)
    ? null
    : values.map((row) => rowPathOf(keyIndexes.map((i) => row[i])));
  if (!compound) {
    return {
      columns: query.columns,
      display_columns,
      display_rows: await displayRows(cellContext, query.columns, values),
      row_paths,
    };
  }
  const columns = ["Link", ...query.columns];
  const withLink = values.map((row) => [
    keys.map((k) => String(row[query.columns.indexOf(k)])).join(","),
    ...row,
  ]);
  return {
    columns,
    display_columns: [
      {
        name: "Link",
        sortable: false,
        is_pk: false,
        type: "",
        notnull: 0,
        description: null,
        column_type: null,
        column_type_config: null,
        is_special_link_column: true,
        sort_url: null,
        sorted: null,
        sort_position: null,
      },
      ...display_columns,
    ],
    display_rows: await displayRows(cellContext, columns, withLink),
    row_paths,
  };
}
