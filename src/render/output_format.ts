/**
 * The one place that picks a response's format. The URL's `.<format>` suffix decides (or, without
 * one, `Accept: application/json`): no suffix is the HTML page, `.json` JSON, `.csv` / `.tsv` /
 * `.ndjson` a streamed text export, and any other suffix a plugin's output renderer (or a 404).
 *
 * - `respondWithRows` serves a page of rows (`RowsPage`: table, row, custom SQL and canned query
 *   pages) in every format, with the page's cache and referrer headers.
 * - `respondWithFormat` serves pages that only have HTML and JSON forms (index, database, the
 *   `/-/` pages).
 * - `formatLinks` / `rendererPaths` link a page to its other formats.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import type { Response } from "../http/response.ts";
import { NotFound } from "../http/errors.ts";
import { wantsJson } from "../http/negotiation.ts";
import {
  canRender,
  type FormatHost,
  type OutputRenderer,
  pluginResponse,
  renderArgs,
} from "./renderers.ts";
import type { RenderHost } from "./host.ts";
import { jsonResponse } from "./json_response.ts";
import type { RowsPage } from "./rows_page.ts";
import { STREAM_FORMATS, streamedResponse, wantsStream } from "./row_stream.ts";

/**
 * The format the request asks for: null for the HTML page, `json`, or the URL's other suffix
 * (`csv`, `tsv`, `ndjson`, a renderer's extension).
 */
export function requestedFormat(request: Request): string | null {
  const format = request.url_vars?.format ?? null;
  if (format === null) return wantsJson(request) ? "json" : null;
  return format;
}

/**
 * Refuses a `.<format>` suffix that nothing serves with the 404 {@link respondWithRows} would
 * give, but before the view runs its SQL: `/db/t.xml` must not wait for a slow query first.
 * `also` names suffixes the view answers itself (the row page's `blob`).
 *
 * @throws {NotFound} for an unknown format
 */
export function ensureKnownFormat(
  svc: FormatHost,
  request: Request,
  also: readonly string[] = [],
): void {
  const format = request.url_vars?.format ?? null;
  if (format === null || format === "json" || STREAM_FORMATS.has(format)) return;
  if (also.includes(format) || svc.registered.renderers.has(format)) return;
  throw new NotFound(`Unknown format: ${format}`);
}

/**
 * True for a text export that asks for every row (`.csv?_stream=on`, `.tsv`, `.ndjson`, or a
 * streaming plugin renderer's format among `renderers`); `format` is the request's, when the
 * caller has read it already.
 */
export function wantsFullExport(
  request: Request,
  format: string | null = requestedFormat(request),
  renderers?: ReadonlyMap<string, OutputRenderer>,
): boolean {
  if (format === null || !wantsStream(request)) return false;
  // A plugin renderer that declares `stream` gets every row too.
  return STREAM_FORMATS.has(format) || Boolean(renderers?.get(format)?.stream);
}

/** True when the request wants the HTML page (no suffix, no `Accept: application/json`). */
export function wantsHtml(request: Request): boolean {
  return requestedFormat(request) === null;
}

/**
 * The `Referrer-Policy` of pages of rows: their URLs carry filters and SQL, which other sites
 * need not see. A `304` for such a page says the same (`app/conditional.ts`).
 */
export const ROWS_REFERRER_POLICY = "no-referrer";

/** Builds the response for `page` in the requested format; `html` renders the HTML page. */
export async function respondWithRows(
  svc: FormatHost,
  request: Request,
  page: RowsPage,
  html: () => Promise<Response>,
): Promise<Response> {
  const format = page.format !== undefined ? page.format : requestedFormat(request);
  let response: Response;
  if (format === "json") {
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
    response.headers["cache-control"] ??= cacheHeaders(svc, request)["cache-control"];
  }
  response.headers["referrer-policy"] ??= ROWS_REFERRER_POLICY;
  return response;
}

/** How to build each representation a page offers. */
export interface Representations {
  json: () => Response | Promise<Response>;
  html: () => Response | Promise<Response>;
  /** Any other format (csv, plugin renderers); null when the view cannot serve it. */
  other?: (format: string) => Response | Promise<Response> | null;
}

/** Calls the builder for the format the request asks for; an unknown format is a 404. */
export async function respondWithFormat(
  request: Request,
  representations: Representations,
): Promise<Response> {
  const format = requestedFormat(request);
  if (format === null) return await representations.html();
  if (format === "json") return await representations.json();
  const other = representations.other?.(format);
  if (other) return await other;
  throw new NotFound(`Unknown format: ${format}`);
}

/** `Cache-Control` for a cacheable response: `max-age=<_ttl or default_cache_ttl>` or `no-cache`. */
export function cacheHeaders(svc: RenderHost, request: Request): Record<string, string> {
  const asked = request.args.get("_ttl");
  const ttl = asked && /^[0-9]+$/.test(asked)
    ? Number(asked)
    : Number(svc.setting("default_cache_ttl"));
  return { "cache-control": ttl > 0 ? `max-age=${ttl}` : "no-cache" };
}

/**
 * Links to every other format of this page (`{format: url}` for `_format_links.html`): JSON, CSV
 * (`_size=max`, as the reference links it) and each plugin renderer whose `can_render` agrees.
 */
export async function formatLinks(
  svc: FormatHost,
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
  svc: FormatHost,
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
  // Like the reference, the query string is kept as the client wrote it (`_extra=a,b` stays
  // unencoded) and the replacements are appended, unless the same key is already there; a
  // replacement of a different value (`_size=10` → `_size=max`) rewrites the query instead.
  const given = new URLSearchParams(request.query_string);
  let text: string;
  if (replace.some(([key, value]) => given.has(key) && given.get(key) !== value)) {
    for (const [key, value] of replace) given.set(key, value);
    text = given.toString();
  } else {
    const added = replace.filter(([key]) => !given.has(key));
    text = [request.query_string, new URLSearchParams(added).toString()].filter(Boolean).join("&");
  }
  return `${barePath(request)}.${format}${text ? `?${text}` : ""}`;
}

/**
 * The absolute URL of an HTML page's JSON twin (the same path with `.json`, the same query), for
 * its `Link: <…>; rel="alternate"` header and `<link rel="alternate">` in its head.
 */
export function alternateJsonUrl(svc: Pick<RenderHost, "absolute_url">, request: Request): string {
  const query = request.query_string ? `?${request.query_string}` : "";
  return svc.absolute_url(request, `${request.path}.json${query}`);
}

/** This page's path (base_url included) in `format`, its `.ext` replaced, with `args`. */
export function formatPath(request: Request, format: string, args: URLSearchParams): string {
  const text = args.toString();
  return `${barePath(request)}.${format}${text ? `?${text}` : ""}`;
}

/** The request's path without its `.ext` (request.path already carries base_url). */
function barePath(request: Request): string {
  const current = request.url_vars?.format;
  return current ? request.path.slice(0, -(current.length + 1)) : request.path;
}
