/**
 * Table page, step 4: the extras. One small provider per `_extra=` key (API-DETAILS §2.1), each
 * computed only when asked and at most once per request, shared by the JSON body and the HTML
 * page: counts under the time limit, facets with their own limits, suggestions, labels, and the
 * descriptive keys.
 *
 * @module
 */

import { type CountResult, countWithFallback } from "../../table/count.ts";
import { md5Hex } from "../../util/hash.ts";
import {
  checkFacetArgsAllowed,
  checkFacetColumns,
  collectFacetResults,
  collectSuggestedFacets,
  DEFAULT_FACET_CLASSES,
  type Facet,
  type FacetResults,
  shouldSuggestFacets,
} from "../../table/facets.ts";
import { SUGGEST_CONSIDER } from "../../table/facet_base.ts";
import {
  facetColumn,
  type FacetConfig,
  type FacetSource,
  loadFacetConfigs,
} from "../../table/facet_configs.ts";
import { argPairs } from "../../table/args.ts";
import { columnsToExpand, expandableColumns, lookupLabels } from "../../table/labels.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { extrasList } from "./extras_list.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import { rendererPaths } from "../../render/output_format.ts";
import type { RowLabels, RowsPage } from "../../render/rows_page.ts";
import { pluginRenderedCells } from "../../render/render_cell.ts";
import type { FetchedPage, TableContext } from "./table_query.ts";
import { rememberedCount, tableRowCount } from "../table_counts.ts";

/** Extra providers by name. */
export type Extras = Record<string, () => Promise<unknown>>;

/** Memoises a provider so a key shared by JSON and HTML runs once. */
function once<T>(fn: () => Promise<T> | T): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => value ??= Promise.resolve().then(fn);
}

/** Row count of the filtered table: exact, a lower bound when slow, or null when unknown. */
async function countRows(ctx: TableContext): Promise<CountResult> {
  const run = async (sql: string, params: Record<string, unknown>) =>
    Number((await ctx.db.execute(sql, params as BindParams)).single_value());
  const count = () => countWithFallback(run, ctx.query.count_from, ctx.query.from_params);
  // Unfiltered, it is the table's count, which immutable files remember.
  if (ctx.query.filtered) return await count();
  return await tableRowCount(ctx.svc, ctx.db, ctx.table, count);
}

/** The facet instances of this page: built-in kinds first, then `register_facet_classes`. */
function facetInstances(ctx: TableContext, rowCount: number | null): Facet[] {
  const { svc, request, db, table } = ctx;
  const classes = [
    ...DEFAULT_FACET_CLASSES,
    ...svc.registered.facetClasses,
  ];
  return classes.map((FacetKind) =>
    new FacetKind({
      // Facets bind named params; the database takes them as BindParams.
      database: {
        execute: (sql, params, options) => db.execute(sql, params as BindParams, options),
      },
      table,
      sql: ctx.query.sql_no_order_no_limit,
      params: ctx.query.from_params,
      args: ctx.args,
      config: ctx.config,
      settings: svc.settings,
      absoluteUrl: (path) => svc.absolute_url(request, path),
      path: request.path,
      expandLabels: (column, values) => labelsFor(ctx, column, values),
      row_count: rowCount,
      columns: ctx.query.facet_columns,
    })
  );
}

/**
 * The page's facets as `type:column` keys in the order they were asked for: configured (metadata)
 * facets first in their configured order, then the request's `_facet*` arguments in URL order —
 * across facet kinds, which `facet_results` groups by kind. Each entry is parsed on its own by
 * `loadFacetConfigs`, so the keys match the facets it builds.
 */
function facetOrder(ctx: TableContext): string[] {
  const config = (ctx.config ?? {}) as FacetConfig;
  const keys: string[] = [];
  const push = (byType: Map<string, FacetSource[]>) => {
    for (const [type, sources] of byType) {
      for (const source of sources) {
        const key = `${type}:${facetColumn(source)}`;
        if (!keys.includes(key)) keys.push(key);
      }
    }
  };
  for (const entry of config.facets ?? []) {
    push(loadFacetConfigs(new URLSearchParams(), { facets: [entry] }));
  }
  for (const pair of argPairs(ctx.args)) push(loadFacetConfigs(new URLSearchParams([pair])));
  return keys;
}

/** `results` sorted by `order` (see `facetOrder`); facets it does not name keep their place after. */
function inFacetOrder<T extends { type: string; name: string }>(
  results: T[],
  order: string[],
): T[] {
  const rank = (r: T) => {
    const i = order.indexOf(`${r.type}:${r.name}`);
    return i === -1 ? order.length : i;
  };
  return results.map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

/** FK labels of `values` in `column` (empty when the column is no foreign key). */
async function labelsFor(
  ctx: TableContext,
  column: string,
  values: unknown[],
): Promise<Map<unknown, unknown>> {
  const fk = ctx.foreign_keys.find((key) => key.column === column);
  if (!fk) return new Map();
  const labelColumn = ctx.label_columns.get(fk.other_table) ?? null;
  return await lookupLabels(
    (sql, params) => ctx.db.execute(sql, params as SqlValue[]),
    fk,
    labelColumn,
    values,
  );
}

/**
 * The labels of a page's FK cells: columns chosen by `_label=` / `_labels=` (every FK by default
 * on HTML pages). In JSON and CSV, like the reference, a FK whose target table has no label column
 * is expanded too, its label being the value; HTML shows such a cell as a plain link.
 */
export function rowLabels(ctx: TableContext, columns: string[], html: boolean): RowLabels {
  const expandable = expandableColumns(ctx.foreign_keys, (t) => ctx.label_columns.get(t) ?? null)
    .filter(([, label]) => !html || label !== null);
  const chosen = columnsToExpand(ctx.args, expandable, columns, html);
  return {
    columns: chosen,
    async lookup(rows) {
      const labels = new Map<string, Map<unknown, unknown>>();
      for (const column of chosen) {
        const i = columns.indexOf(column);
        labels.set(column, await labelsFor(ctx, column, rows.map((row) => row[i])));
      }
      return labels;
    },
  };
}

/** Every extra of the table page, for `_extra=` and for the HTML context. */
export function tableExtras(ctx: TableContext, page: FetchedPage): Extras {
  const { svc, request, db, table, query, facts } = ctx;
  const nocount = Boolean(ctx.args.get("_nocount"));
  const counted = once(() => nocount ? null : countRows(ctx));
  const count = once(async () => (await counted())?.count ?? null);
  const facets = once(() => {
    checkFacetArgsAllowed(ctx.args, Boolean(svc.setting("allow_facet")));
    checkFacetColumns(ctx.args, query.use_rowid ? ["rowid", ...facts.columns] : facts.columns);
    if (ctx.args.get("_nofacet")) return [] as Facet[];
    // A remembered table count spares the suggestions their row-count query.
    const rowCount = query.filtered ? null : rememberedCount(svc, db, table, SUGGEST_CONSIDER);
    return facetInstances(ctx, rowCount);
  });
  const facetResults = once(async (): Promise<FacetResults> => collectFacetResults(await facets()));
  const suggested = once(async () => {
    const settings = {
      suggest_facets: Boolean(svc.setting("suggest_facets")),
      allow_facet: Boolean(svc.setting("allow_facet")),
    };
    if (!shouldSuggestFacets(ctx.args, settings)) return [];
    return await collectSuggestedFacets(await facets());
  });
  const names = { database: db.name, table };
  const extras: Extras = {
    count,
    count_truncated: once(async () => (await counted())?.truncated ?? false),
    count_sql: once(() => query.count_sql),
    facet_results: facetResults,
    facets_timed_out: once(async () => (await facetResults()).timed_out),
    suggested_facets: suggested,
    sorted_facet_results: once(async () =>
      inFacetOrder(Object.values((await facetResults()).results), facetOrder(ctx))
    ),
    human_description_en: once(() => query.human_description_en),
    next_url: once(() => page.next_url),
    columns: once(() => query.columns),
    all_columns: once(() => facts.columns),
    primary_keys: once(() => facts.pks),
    column_details: once(() => facts.column_details),
    column_types: once(() => facts.column_types ?? {}),
    query: once(() => ({ sql: query.sql, params: query.params })),
    request: once(() => ({
      url: request.url,
      path: request.path,
      full_path: request.full_path,
      host: request.host,
      args: Object.fromEntries([...ctx.args.keys()].map((k) => [k, ctx.args.getAll(k)])),
    })),
    debug: once(() => ({
      url_vars: request.url_vars,
      nofacet: Boolean(ctx.args.get("_nofacet")),
      nosuggest: Boolean(ctx.args.get("_nosuggest")),
    })),
    // Like the reference, `columns` (column descriptions) is always there, `{}` when none.
    metadata: once(() => ({ ...ctx.config, columns: ctx.config.columns ?? {} })),
    database: once(() => db.name),
    table: once(() => table),
    database_color: once(() => (db.hash ?? md5Hex(db.name)).slice(0, 6)),
    is_view: once(() => ctx.is_view),
    private: once(() => ctx.private),
    table_definition: once(() => ctx.is_view ? null : db.get_table_definition(table)),
    view_definition: once(() => ctx.is_view ? db.get_view_definition(table) : null),
    expandable_columns: once(() =>
      expandableColumns(ctx.foreign_keys, (t) => ctx.label_columns.get(t) ?? null)
    ),
    form_hidden_args: once(() => formHiddenArgs(ctx.args)),
    custom_table_templates: once(() => templateCandidates("table_rows", names)),
    display_columns: once(() => jsonDisplayColumns(ctx)),
    // Vitrine has no set-column-type API, so no actor may use one: always null.
    set_column_type_ui: once(() => null),
  };
  extras.extras = once(() => extrasList(svc, request, Object.keys(extras), selectedExtras(ctx)));
  return extras;
}

/** Adds the extras that need the finished page: `render_cell` and `renderers`. */
export function addPageExtras(extras: Extras, ctx: TableContext, page: RowsPage): void {
  const { svc, request, db, table } = ctx;
  extras.render_cell = once(() =>
    pluginRenderedCells({ svc, request, database: db.name, table }, page.columns, page.rows)
  );
  // Like the reference, the links ask for labels when the table has foreign keys.
  const labels: [string, string][] = ctx.foreign_keys.length ? [["_labels", "on"]] : [];
  extras.renderers = once(() => rendererPaths(svc, request, page, labels));
}

/** Extras a JSON body gets without asking: `facet_results` whenever a `_facet*` arg is given. */
export function autoExtras(ctx: TableContext): string[] {
  const facetArg = [...ctx.args.keys()].some((k) => k === "_facet" || k.startsWith("_facet_"));
  return facetArg ? ["facet_results"] : [];
}

/** Column headings of the HTML table, with every key the reference gives each of them. */
export function displayColumns(ctx: TableContext) {
  const sortable = (ctx.config.sortable_columns as string[] | undefined) ?? ctx.facts.columns;
  const descriptions = (ctx.config.columns ?? {}) as Record<string, string>;
  const notnull = new Map(
    ctx.facts.column_details.map((d) => [String(d.name), Number(d.notnull) ? 1 : 0]),
  );
  return ctx.query.columns.map((name) => ({
    name,
    sortable: sortable.includes(name) || (name === "rowid" && ctx.query.use_rowid),
    is_pk: ctx.query.primary_keys.includes(name),
    type: ctx.facts.column_types?.[name] ?? (name === "rowid" ? "integer" : ""),
    notnull: notnull.get(name) ?? 0,
    description: descriptions[name] ?? null,
    // Vitrine has no column-type assignments; the keys are there for clients that read them.
    column_type: null,
    column_type_config: null,
  }));
}

/**
 * `_extra=display_columns` as the reference answers it for a table: the single primary key
 * column first, or a leading `Link` column (compound keys, rowid tables); views as they are.
 */
function jsonDisplayColumns(ctx: TableContext) {
  const columns = displayColumns(ctx);
  if (ctx.is_view) return columns;
  const pks = ctx.facts.pks;
  if (pks.length === 1) {
    const pk = columns.find((c) => c.name === pks[0]);
    return pk ? [pk, ...columns.filter((c) => c !== pk)] : columns;
  }
  const link = {
    name: "Link",
    sortable: false,
    is_pk: false,
    type: "",
    notnull: 0,
    is_special_link_column: true,
  };
  return [link, ...columns];
}

/** The extras this request includes: asked for, automatic, and `count_truncated` with `count`. */
function selectedExtras(ctx: TableContext): Set<string> {
  const asked = ctx.args.getAll("_extra").flatMap((v) => v.split(",")).map((v) => v.trim());
  const selected = new Set([...autoExtras(ctx), ...asked.filter(Boolean)]);
  if (selected.has("count")) selected.add("count_truncated");
  return selected;
}

/** Arguments the filter form must carry over as hidden fields. */
function formHiddenArgs(args: URLSearchParams): [string, string][] {
  const visible = new Set(["_search", "_next"]);
  return [...args.entries()].filter(([key]) =>
    key.startsWith("_") && !key.includes("__") && !visible.has(key) &&
    !key.startsWith("_filter_") && !key.startsWith("_sort")
  );
}
