/**
 * Table page, step 4: the extras. One small provider per `_extra=` key (API-DETAILS §2.1), each
 * computed only when asked and at most once per request, shared by the JSON body and the HTML
 * page: counts under the time limit, facets with their own limits, suggestions, labels, and the
 * descriptive keys.
 *
 * @module
 */

import { type CountResult, countWithFallback } from "../../table/count.ts";
import { requestTimeLeft } from "../../db/request_clock.ts";
import { columnDetailsExtra, databaseColor, requestExtra } from "../../render/page_extras.ts";
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
import { columnsToExpand, expandableColumns, lookupLabels } from "../../table/labels.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { extrasList } from "./extras_list.ts";
import { columnTypesExtra } from "../typed_columns.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import { rendererPaths } from "../../render/output_format.ts";
import type { RowLabels, RowsPage } from "../../render/rows_page.ts";
import { pluginRenderedCells } from "../../render/render_cell.ts";
import type { FetchedPage, TableContext } from "./table_query.ts";
import { rememberedCount, TABLE_COUNT_MS, tableRowCount } from "../table_counts.ts";

/** Extra providers by name. */
export type Extras = Record<string, () => Promise<unknown>>;

/** Memoises a provider so a key shared by JSON and HTML runs once. */
function once<T>(fn: () => Promise<T> | T): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => value ??= Promise.resolve().then(fn);
}

/** Row count of the filtered table: exact, a lower bound when slow, or null when unknown. */
async function countRows(ctx: TableContext): Promise<CountResult> {
  // The request's queries share one time limit. The full count leaves a reserve (a third, at
  // least 10 ms, at most half of what is left); the capped counts that give a lower bound when
  // it runs out have that reserve each, so a busy machine cannot leave them no time at all.
  const left = requestTimeLeft(Number(ctx.svc.setting("sql_time_limit_ms")));
  const reserve = left === null ? null : Math.min(left / 2, Math.max(left / 3, 10));
  // A table's own count is the page's, not the visitor's question: it gets a small share.
  const full = ctx.query.filtered ? Infinity : TABLE_COUNT_MS;
  let first = true;
  const run = async (sql: string, params: Record<string, unknown>) => {
    const cache = ctx.cacheable;
    const options = reserve === null
      ? { cache }
      : first
      ? { custom_time_limit: Math.max(1, Math.floor(Math.min(left! - reserve, full))), cache }
      : { custom_time_limit: Math.max(1, Math.ceil(reserve)), request_deadline: false, cache };
    first = false;
    return Number((await ctx.db.execute(sql, params as BindParams, options)).single_value());
  };
  const count = (full = true) =>
    countWithFallback(
      run,
      ctx.query.count_from,
      ctx.query.from_params,
      undefined,
      ctx.db.dialect,
      full,
    );
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
        dialect: db.dialect,
        execute: (sql, params, options) =>
          db.execute(sql, params as BindParams, { ...options, cache: ctx.cacheable }),
      },
      table,
      sql: ctx.query.sql_no_order_no_limit,
      params: ctx.query.from_params,
      args: ctx.params.args,
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
  for (const pair of ctx.params.pairs) push(loadFacetConfigs(new URLSearchParams([pair])));
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
    // One row per distinct value asked for, so never more than the page's values: not capped at
    // `max_returned_rows`, which a stream's chunk of rows exceeds (its labels went missing).
    (sql, params) =>
      ctx.db.execute(sql, params as SqlValue[], { cache: ctx.cacheable, truncate: false }),
    fk,
    labelColumn,
    values,
    ctx.db.dialect,
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
  const chosen = columnsToExpand(ctx.params.args, expandable, columns, html);
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

/** What one page's extras are made from, and what they made so far. */
interface ExtrasState {
  ctx: TableContext;
  page: FetchedPage;
  /** Each extra's provider, made when first asked for (the same function every time). */
  providers: Map<string, () => Promise<unknown>>;
  /** Each value, computed once: by extra name, and by step for those several extras share. */
  values: Map<string, Promise<unknown>>;
}

/** `name`'s value for the page, computed once (a key shared by JSON and HTML runs once). */
function valueOf<T>(state: ExtrasState, name: string, compute: () => T | Promise<T>): Promise<T> {
  let value = state.values.get(name) as Promise<T> | undefined;
  if (!value) state.values.set(name, value = Promise.resolve().then(compute));
  return value;
}

/** The filtered table's count, once for `count` and `count_truncated` (none with `_nocount`). */
const counted = (state: ExtrasState) =>
  valueOf(
    state,
    "\u0000counted",
    () => state.ctx.params.nocount ? null : countRows(state.ctx),
  );

/** The page's facets, once for their results and their suggestions. */
const facets = (state: ExtrasState) =>
  valueOf(state, "\u0000facets", () => {
    const { ctx } = state;
    const { svc, db, table, query, facts } = ctx;
    const { args } = ctx.params;
    checkFacetArgsAllowed(args, Boolean(svc.setting("allow_facet")));
    checkFacetColumns(args, query.use_rowid ? ["rowid", ...facts.columns] : facts.columns);
    if (ctx.params.nofacet) return [] as Facet[];
    // A remembered table count spares the suggestions their row-count query.
    const rowCount = query.filtered ? null : rememberedCount(svc, db, table, SUGGEST_CONSIDER);
    return facetInstances(ctx, rowCount);
  });

/** The facets' results, once for `facet_results`, `facets_timed_out` and their sorted list. */
const facetResults = (state: ExtrasState) =>
  valueOf(
    state,
    "\u0000facet_results",
    async (): Promise<FacetResults> => collectFacetResults(await facets(state)),
  );

/**
 * Every extra of the table page, for `_extra=` and for the HTML context, in the order the
 * `extras` extra lists them. A page asks for a few: each is made only when asked for.
 */
const BUILDERS: Record<string, (state: ExtrasState) => unknown> = {
  count: async (state) => (await counted(state))?.count ?? null,
  count_truncated: async (state) => (await counted(state))?.truncated ?? false,
  count_sql: ({ ctx }) => ctx.query.count_sql,
  facet_results: facetResults,
  facets_timed_out: async (state) => (await facetResults(state)).timed_out,
  suggested_facets: async (state) => {
    const { svc, params } = state.ctx;
    const settings = {
      suggest_facets: Boolean(svc.setting("suggest_facets")),
      allow_facet: Boolean(svc.setting("allow_facet")),
    };
    if (!shouldSuggestFacets(params.args, settings)) return [];
    return await collectSuggestedFacets(await facets(state));
  },
  sorted_facet_results: async (state) =>
    inFacetOrder(Object.values((await facetResults(state)).results), facetOrder(state.ctx)),
  human_description_en: ({ ctx }) => ctx.query.human_description_en,
  next_url: ({ page }) => page.next_url,
  columns: ({ ctx }) => ctx.query.columns,
  all_columns: ({ ctx }) => ctx.facts.columns,
  primary_keys: ({ ctx }) => ctx.facts.pks,
  column_details: ({ ctx }) => columnDetailsExtra(ctx.facts.column_details, ctx.facts.pks),
  // 1.0's column-type assignments (a column's `email`, `url`, … type) from configuration and
  // `/-/set-column-type`; the declared SQLite types are in `column_details`.
  column_types: ({ ctx }) => columnTypesExtra(ctx.svc, ctx.db.name, ctx.table),
  query: ({ ctx }) => ({ sql: ctx.query.sql, params: ctx.query.params }),
  request: ({ ctx: { request, params: { args } } }) => requestExtra(request, args),
  debug: ({ ctx: { request, params } }) => ({
    url_vars: request.url_vars,
    nofacet: params.nofacet,
    nosuggest: params.nosuggest,
  }),
  // Like the reference, `columns` (column descriptions) is always there, `{}` when none.
  metadata: ({ ctx }) => ({ ...ctx.config, columns: ctx.config.columns ?? {} }),
  database: ({ ctx }) => ctx.db.name,
  table: ({ ctx }) => ctx.table,
  database_color: ({ ctx: { db } }) => databaseColor(db),
  is_view: ({ ctx }) => ctx.is_view,
  private: ({ ctx }) => ctx.private,
  table_definition: ({ ctx }) => ctx.is_view ? null : ctx.db.get_table_definition(ctx.table),
  view_definition: ({ ctx }) => ctx.is_view ? ctx.db.get_view_definition(ctx.table) : null,
  expandable_columns: ({ ctx }) =>
    expandableColumns(ctx.foreign_keys, (t) => ctx.label_columns.get(t) ?? null),
  form_hidden_args: ({ ctx }) => formHiddenArgs(ctx.params.args),
  custom_table_templates: ({ ctx }) =>
    templateCandidates("table_rows", { database: ctx.db.name, table: ctx.table }),
  display_columns: ({ ctx }) => jsonDisplayColumns(ctx),
  // Vitrine has no column-type dialog (the API is /-/set-column-type): always null.
  set_column_type_ui: () => null,
};

/** Where a page's extras keep their {@link ExtrasState}: out of reach of any extra's name. */
const STATE = Symbol("table extras");

/**
 * What every page's extras inherit: a getter per {@link BUILDERS} name handing out its provider.
 * No `Object.prototype` behind it, so `_extra=constructor` names nothing.
 */
const EXTRAS_PROTOTYPE: object = Object.create(null);
for (const name of Object.keys(BUILDERS)) {
  Object.defineProperty(EXTRAS_PROTOTYPE, name, {
    get(this: { [STATE]: ExtrasState }) {
      const state = this[STATE];
      let provider = state.providers.get(name);
      if (!provider) {
        provider = () => valueOf(state, name, () => BUILDERS[name](state));
        state.providers.set(name, provider);
      }
      return provider;
    },
    enumerable: true,
  });
}

/** Every extra of the table page, for `_extra=` and for the HTML context. */
export function tableExtras(ctx: TableContext, page: FetchedPage): Extras {
  const extras = Object.create(EXTRAS_PROTOTYPE) as Extras & { [STATE]: ExtrasState };
  extras[STATE] = { ctx, page, providers: new Map(), values: new Map() };
  extras.extras = once(() =>
    extrasList(ctx.svc, ctx.request, extraNames(extras), selectedExtras(ctx))
  );
  return extras;
}

/** The names of a page's extras: every built-in one, then those added to it (`extras`, …). */
function extraNames(extras: Extras): string[] {
  return [...Object.keys(BUILDERS), ...Object.keys(extras)];
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
  return ctx.params.facets_asked ? ["facet_results"] : [];
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
  const selected = new Set([...autoExtras(ctx), ...ctx.params.extras]);
  if (selected.has("count")) selected.add("count_truncated");
  return selected;
}

/** Arguments the filter form must carry over as hidden fields. */
function formHiddenArgs(args: URLSearchParams): [string, string][] {
  // `_q` is the search box's own field on a table without a full-text index.
  const visible = new Set(["_search", "_q", "_next"]);
  return [...args.entries()].filter(([key]) =>
    key.startsWith("_") && !key.includes("__") && !visible.has(key) &&
    !key.startsWith("_filter_") && !key.startsWith("_sort")
  );
}
