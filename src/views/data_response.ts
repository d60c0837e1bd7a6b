/**
 * The one place a page of rows becomes a response in the format the request asks for: HTML (the
 * view's builder), JSON in every `_shape`, streamed CSV / TSV / NDJSON, or a plugin's output
 * renderer. Table, row, custom SQL and canned query pages all hand their rows over as a `RowsPage`:
 *
 * ```ts
 * interface RowsPage {
 *   view_name: string;            // "table" | "row" | "query" | "database" (renderer argument)
 *   database: string;             // database name
 *   table: string | null;         // table or view; null for queries
 *   query_name: string | null;    // canned query name, else null
 *   columns: string[];
 *   rows: SqlValue[][];           // this page's rows, in column order
 *   sql: string | null; params: Record<string, unknown>;
 *   truncated: boolean;           // more rows than max_returned_rows (queries)
 *   error: string | null;         // JSON then ignores _shape: {...defaultKeys, rows, error, truncated}
 *   next: string | null;          // _next token of the following page
 *   next_url: string | null;      // its absolute URL: sent as `link: <…>; rel="next"` on JSON
 *   primary_keys?: string[] | null; // for _shape=object; null/absent = not a table (400)
 *   defaultKeys: Record<string, unknown>; // JSON keys before rows, e.g. {ok: true, next}
 *   extras: Record<string, () => unknown>; // `_extra=` providers; unknown names → 400
 *   // optional:
 *   autoExtras?: string[];        // extras included without being asked (facet_results, …)
 *   ignoreExtraArg?: boolean;     // `_extra=` is ignored (row pages of the spec's era)
 *   status?: number;              // default 200 (a query error page sends 400)
 *   cache?: boolean;              // Cache-Control max-age=<default_cache_ttl or _ttl>; default off
 *   column_types?: ColumnTypes;   // declared types: REAL 12 prints 12.0 in CSV and _nl lines
 *   labels?: RowLabels;           // foreign-key labels: {value,label} cells, <col>_label CSV columns
 *   blobUrl?: (row, column) => string | null;   // path of a BLOB cell's .blob download
 *   blobUrls?: (rows) => Promise<blobUrl>;      // the same, resolved per page (query pages)
 *   fetchNext?: (next) => Promise<{rows, next}>;  // following pages, for `_stream=on`
 *   filename?: string;            // `_dl=on` file name stem (defaults to table or database)
 * }
 * ```
 *
 * @module
 */

import type { ViewHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { NotFound } from "../http/errors.ts";
import { wantsJson } from "../http/negotiation.ts";
import type { SqlValue } from "../db/values.ts";
import { TableArgsError } from "../table/errors.ts";
import { keepInfinity, parseJsonColumns, parseShape, shapedRows } from "../table/shapes.ts";
import { valueAsBoolean } from "../table/args.ts";
import { makeRows } from "../db/results.ts";
import { canRender, runRenderer } from "../render/renderers.ts";
import {
  type ColumnTypes,
  jsonBodyText,
  markIntegralReals,
  newlineDelimited,
} from "../render/json.ts";
import { STREAM_FORMATS, streamedResponse } from "../render/row_stream.ts";

/** Foreign-key labels: which columns are expanded, and a lookup for a chunk of rows. */
export interface RowLabels {
  columns: string[];
  lookup(rows: SqlValue[][]): Promise<Map<string, Map<unknown, unknown>>>;
}

/** A page of rows and everything the output formats need (see the module comment). */
export interface RowsPage {
  view_name: string;
  database: string;
  table: string | null;
  query_name: string | null;
  columns: string[];
  rows: SqlValue[][];
  sql: string | null;
  params: Record<string, unknown>;
  truncated: boolean;
  error: string | null;
  next: string | null;
  next_url: string | null;
  primary_keys?: string[] | null;
  defaultKeys: Record<string, unknown>;
  extras: Record<string, () => unknown | Promise<unknown>>;
  autoExtras?: string[];
  /** Rows pages of the spec's era ignore `_extra=` (they read `_extras`, see row.ts). */
  ignoreExtraArg?: boolean;
  status?: number;
  cache?: boolean;
  column_types?: ColumnTypes;
  labels?: RowLabels;
  blobUrl?: (row: SqlValue[], column: string) => string | null;
  /** Per-page form of `blobUrl`, for pages that must look rows up to address them. */
  blobUrls?: (rows: SqlValue[][]) => Promise<(row: SqlValue[], column: string) => string | null>;
  fetchNext?: (next: string) => Promise<{ rows: SqlValue[][]; next: string | null }>;
  filename?: string;
}

/** Builds the response for `page` in the requested format; `html` renders the HTML page. */
export async function respondWithRows(
  svc: ViewHost,
  request: Request,
  page: RowsPage,
  html: () => Promise<Response>,
): Promise<Response> {
  const format = request.url_vars?.format ?? null;
  let response: Response;
  if (format === "json" || (format === null && wantsJson(request))) {
    response = await jsonResponse(request, page);
  } else if (format === null) {
    // The handler adds the `Link: <…json>; rel="alternate"` header to HTML pages.
    response = await html();
  } else if (STREAM_FORMATS.has(format)) {
    response = streamedResponse(svc, request, page, format);
  } else {
    response = await pluginResponse(svc, request, page, format);
  }
  if (page.cache && response.status === 200) {
    response.headers["cache-control"] ??= cacheControl(svc, request);
  }
  response.headers["referrer-policy"] ??= "no-referrer";
  return response;
}

/** `max-age=<_ttl or default_cache_ttl>`, or `no-cache` for a TTL of 0. */
function cacheControl(svc: ViewHost, request: Request): string {
  const asked = request.args.get("_ttl");
  const ttl = asked !== null && /^[0-9]+$/.test(asked)
    ? Number(asked)
    : Number(svc.setting("default_cache_ttl"));
  return ttl > 0 ? `max-age=${ttl}` : "no-cache";
}

/** The `_extra=` names asked for (repeatable, comma-separated), plus the page's automatic ones. */
function requestedExtras(
  request: Request,
  page: Pick<RowsPage, "autoExtras" | "ignoreExtraArg">,
): string[] {
  const names = page.ignoreExtraArg
    ? []
    : request.args.getlist("_extra").flatMap((v) => v.split(","))
      .map((v) => v.trim()).filter(Boolean);
  return [...new Set([...(page.autoExtras ?? []), ...names])];
}

/** Resolves the requested extras in order; an unknown name is a 400. */
async function resolveExtras(
  request: Request,
  page: Pick<RowsPage, "extras" | "autoExtras" | "ignoreExtraArg">,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of requestedExtras(request, page)) {
    const provider = page.extras[name];
    if (!provider) throw new TableArgsError(`Unknown _extra: ${name}`);
    out[name] = await provider();
  }
  // The reference drops `columns` unless `_extra=columns` is given on its own (#2136), so a
  // comma-joined list that names it leaves it out; examples/09 shows this.
  if ("columns" in out && !request.args.getlist("_extra").includes("columns")) {
    delete out.columns;
  }
  return out;
}

/** Rows with `_json=` columns parsed and foreign-key cells expanded to `{value, label}`. */
async function jsonRows(request: Request, page: RowsPage): Promise<unknown[][]> {
  let rows: unknown[][] = parseJsonColumns(page.columns, page.rows, request.args.getlist("_json"));
  if (page.labels && page.labels.columns.length) {
    const labels = await page.labels.lookup(page.rows);
    const indexes = page.columns.map((c) => labels.get(c) ?? null);
    rows = rows.map((row) =>
      row.map((cell, i) => {
        const map = indexes[i];
        return map && cell !== null && map.has(cell) ? { value: cell, label: map.get(cell) } : cell;
      })
    );
  }
  return rows;
}

async function jsonResponse(request: Request, page: RowsPage): Promise<Response> {
  const infinity = keepInfinity(request.args);
  const headers: Record<string, string> = {};
  if (page.next_url) headers["link"] = `<${page.next_url}>; rel="next"`;
  const status = page.status ?? 200;
  const json = (body: unknown) =>
    new Response(jsonBodyText(body, infinity), {
      status,
      headers,
      content_type: "application/json; charset=utf-8",
    });
  if (page.error !== null) {
    return json({ ...page.defaultKeys, rows: [], error: page.error, truncated: page.truncated });
  }
  const shape = parseShape(request.args);
  const extras = await resolveExtras(request, page);
  const rows = await jsonRows(request, page);
  if (shape === "array" && valueAsBoolean(request.args.get("_nl"))) {
    return new Response(newlineDelimited(page.columns, rows, page.column_types, infinity), {
      status,
      headers,
      content_type: "text/plain",
    });
  }
  // Integral REAL values print as `12.0`, like the reference (not in object keys).
  const reals = markIntegralReals(page.columns, rows, page.column_types, page.primary_keys ?? []);
  const shaped = shapedRows(shape, page.columns, reals, page.primary_keys ?? null);
  if (shape === "objects" || shape === "arrays") {
    return json({ ...page.defaultKeys, ...extras, rows: shaped, truncated: page.truncated });
  }
  return json(shaped);
}

/** A plugin renderer's response for `format`, or 404 when no renderer has that extension. */
async function pluginResponse(
  svc: ViewHost,
  request: Request,
  page: RowsPage,
  format: string,
): Promise<Response> {
  const renderer = svc.registered.renderers.get(format);
  if (!renderer) throw new NotFound(`Unknown format: ${format}`);
  const result = await runRenderer(renderer, await renderArgs(svc, request, page));
  if (!result) throw new NotFound("No data");
  return result;
}

/** The named values renderers' `render` and `can_render` receive. */
async function renderArgs(svc: ViewHost, request: Request, page: RowsPage) {
  const data = page.error === null
    ? { ...page.defaultKeys, ...await resolveExtras(request, page) }
    : { ...page.defaultKeys };
  return {
    svc,
    columns: page.columns,
    // Rows answer row[0] and row["column"], like the database's own Results.
    rows: makeRows(page.columns, page.rows.map((row) => [...row])),
    sql: page.sql,
    query_name: page.query_name,
    database: page.database,
    table: page.table,
    request,
    error: page.error,
    truncated: page.truncated,
    view_name: page.view_name,
    data,
  };
}

/**
 * Links to every other format of this page (`{format: url}` for `_format_links.html`): JSON, CSV
 * (`_size=max`, as the reference links it) and each plugin renderer whose `can_render` agrees.
 */
export async function formatLinks(
  svc: ViewHost,
  request: Request,
  page: RowsPage,
): Promise<Record<string, string>> {
  const { json, ...plugins } = await rendererPaths(svc, request, page);
  return { json, csv: formatUrl(request, "csv", [["_size", "max"]]), ...plugins };
}

/**
 * The `renderers` extra (API-DETAILS §2.1): `{format: path}` for JSON and each plugin renderer
 * whose `can_render` agrees, with `replace` arguments (the reference adds `_labels=on` when the
 * table has foreign keys).
 */
export async function rendererPaths(
  svc: ViewHost,
  request: Request,
  page: RowsPage,
  replace: [string, string][] = [],
): Promise<Record<string, string>> {
  const paths: Record<string, string> = { json: formatUrl(request, "json", replace) };
  // can_render sees the page without its extras: it must not fail on this page's `_extra=`.
  const bare = { ...page, extras: {}, autoExtras: [], ignoreExtraArg: true };
  for (const [extension, renderer] of svc.registered.renderers) {
    const args = await renderArgs(svc, request, bare);
    if (await canRender(renderer, args)) paths[extension] = formatUrl(request, extension, replace);
  }
  return paths;
}

/** This page's URL (base_url included) in another format, with some arguments replaced. */
function formatUrl(
  request: Request,
  format: string,
  replace: [string, string][] = [],
): string {
  const current = request.url_vars?.format;
  const bare = current ? request.path.slice(0, -(current.length + 1)) : request.path;
  // Like the reference, the query string is kept as the client wrote it (`_extra=a,b` stays
  // unencoded) and the replacements are appended, unless the same pair is already there.
  // A replacement of a different value (`_size=10` → `_size=max`) rewrites the query instead.
  const given = new URLSearchParams(request.query_string);
  let text: string;
  if (replace.some(([key, value]) => given.has(key) && given.get(key) !== value)) {
    for (const [key, value] of replace) given.set(key, value);
    text = given.toString();
  } else {
    const added = replace.filter(([key]) => !given.has(key));
    text = [request.query_string, new URLSearchParams(added).toString()].filter(Boolean).join("&");
  }
  // request.path already carries base_url.
  return `${bare}.${format}${text ? `?${text}` : ""}`;
}
