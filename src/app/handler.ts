/**
 * The request lifecycle, in the order the code runs it:
 *
 * 1. `Deno.serve` (or `svc.client`) calls the handler; it awaits `svc.ready()` (plugins, startup)
 *    and runs through any `asgi_wrapper` hooks.
 * 2. `base_url` is stripped from the raw pathname (which keeps `%2F` encoded).
 * 3. The router matches: plugin routes first, then `/-/…`, then `/<db>` patterns.
 * 4. A spec `Request` is built; `url_vars` come from the route's named groups.
 * 5. The actor is resolved (`actor_from_request` hooks, first non-null wins).
 * 6. Unsafe methods pass the CSRF check unless a `skip_csrf` hook says otherwise.
 * 7. The view runs and returns a `Response`.
 * 8. Messages and CSRF cookies, CORS headers; `HEAD` drops the body.
 * 9. Any throw goes to `handleError`, the only catch in the pipeline.
 * 10. With `trace_debug` on, `?_trace=1` runs steps 2–9 inside a trace and adds every SQL query
 *     to the response (`trace.ts`).
 */
import type { AppHost as Service, FetchHandler } from "./host.ts";
import { readHeaders, Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { HttpError, MethodNotAllowed, NotFound } from "../http/errors.ts";
import { isMethodMismatch } from "../http/router.ts";
import { handleError } from "./error_response.ts";
import { requestState, routePath } from "../http/request_state.ts";
import { resolveActor } from "./resolve_actor.ts";
import { enforceCsrf } from "./enforce_csrf.ts";
import { encodeMessages } from "../auth/messages.ts";
import { CUSTOM_PAGE_ROUTE, type View } from "./routes.ts";
import { NoCustomPage } from "../views/special/custom_page.ts";
import { traceRequest } from "./trace_page.ts";
import { withArrival } from "../db/request_clock.ts";
import { matches, notModified, pageTag } from "./conditional.ts";
import { compressResponse } from "./compression.ts";
import { pageCacheKey } from "./page_cache.ts";
import { wallClock } from "../db/read_query.ts";
import { addSecurityHeaders } from "./security_headers.ts";
import { appendVary } from "../http/vary.ts";
import type { HeaderAccess } from "../http/header_list.ts";
import { databaseForRoute, resolveDatabase, resolveTable } from "./resolve.ts";
import { tilde_decode } from "../util/tilde.ts";
import { cannedQueryFor } from "../config/canned_query_catalog.ts";
import { type RequestOrigin, requestOrigin } from "./origin.ts";
import { earlyErrorResponse, requestLimitError } from "./request_limits.ts";
import { healthResponse } from "./lifecycle.ts";
import { noteKind, noteRoute } from "./metrics.ts";
import { markReplayedWrite, sendToPrimary, writeGoesToPrimary } from "./litefs.ts";
import { alternateJsonUrl } from "../render/output_format.ts";
import { findCustomPage } from "../render/custom_page_templates.ts";

export type { FetchHandler };

type Wrapper = (app: FetchHandler) => FetchHandler;

/** Builds the service's handler; `asgi_wrapper` hooks wrap it once the service booted. */
export function createHandler(svc: Service): FetchHandler {
  let wrapped: FetchHandler | null = null;
  let startupErrorLogged = false;
  // Every query of the request is limited from its arrival (`request_clock.ts`).
  const core: FetchHandler = (raw) =>
    withArrival(wallClock(), () => traceRequest(svc, raw, () => handleRequest(svc, raw)));
  const answer: FetchHandler = async (raw, info) => {
    const health = healthResponse(svc.lifecycle, raw, String(svc.setting("base_url")));
    if (health) {
      noteKind(raw, "health");
      return health;
    }
    try {
      // Once started, no await here: every request passes this point.
      if (!svc.lifecycle.started) await svc.ready();
    } catch (error) {
      if (!startupErrorLogged) console.error(error);
      startupErrorLogged = true;
      // Details (and file paths) go to the server log; clients only learn that start-up failed.
      return new globalThis.Response("Vitrine failed to start; see the server log.", {
        status: 500,
      });
    }
    const primary = writeGoesToPrimary(svc, raw);
    if (primary) {
      noteKind(raw, "forwarded");
      return await sendToPrimary(svc, raw, primary);
    }
    wrapped ??= (svc.state.wrappers as Wrapper[]).reduce((app, wrap) => wrap(app) ?? app, core);
    const response = await wrapped(raw, info);
    markReplayedWrite(svc, raw, response);
    // While draining, clients should open their next connection elsewhere.
    if (svc.lifecycle.phase === "draining") {
      try {
        response.headers.set("connection", "close");
      } catch { /* a plugin's response with immutable headers */ }
    }
    return response;
  };
  // Every answer is counted (`/-/metrics`), from its arrival to its headers.
  return async (raw, info) => {
    const started = performance.now();
    const lifecycle = svc.lifecycle;
    const id = lifecycle.begin();
    let status = 500;
    try {
      const response = await answer(raw, info);
      status = response.status;
      return response;
    } finally {
      lifecycle.end(id);
      svc.metrics.observeRequest(raw, status, (performance.now() - started) / 1000);
    }
  };
}

async function handleRequest(svc: Service, raw: globalThis.Request): Promise<globalThis.Response> {
  const url = parseUrl(raw.url);
  const { headers, bytes } = readHeaders(raw);
  const origin = checkRequest(svc, raw, url, bytes);
  if (origin instanceof globalThis.Response) return origin;
  const limit = Number(svc.setting("max_post_body_bytes"));
  const request = new Request(raw, {
    max_post_body_bytes: limit > 0 ? limit : null,
    body_time_limit_ms: Number(svc.setting("body_time_limit_ms")),
    max_json_depth: Number(svc.setting("max_json_depth")),
    scheme: origin.scheme,
    host: origin.host,
    parsed_url: url,
    header_record: headers,
  });
  requestState(request).hostFromHeader = origin.fromHostHeader;
  const inside = stripBaseUrl(request.path, String(svc.setting("base_url")));
  requestState(request).routePath = inside;
  let response: Response;
  try {
    if (inside === null) throw new NotFound("Not found");
    response = await routeOrStripSlash(svc, request);
  } catch (error) {
    response = await handleError(svc, request, error);
  }
  return finish(svc, request, response);
}

/**
 * Steps 1½ of the lifecycle: the URL and headers within their limits (414, 431), the Host
 * header (or `public_url`, or a trusted proxy's headers) deciding the origin (400). Returns the
 * origin, or the response refusing the request.
 */
function checkRequest(
  svc: Service,
  raw: globalThis.Request,
  url: URL | undefined,
  headerBytes: number,
): RequestOrigin | globalThis.Response {
  let error: HttpError | null = requestLimitError(raw, {
    maxUrlBytes: Number(svc.setting("max_url_bytes")),
    maxHeaderBytes: Number(svc.setting("max_header_bytes")),
  }, headerBytes);
  if (!error) {
    try {
      return requestOrigin(raw, {
        publicUrl: String(svc.setting("public_url")),
        trustProxy: Boolean(svc.options.trust_proxy),
      }, url);
    } catch (thrown) {
      if (!(thrown instanceof HttpError)) throw thrown;
      error = thrown;
    }
  }
  const response = earlyErrorResponse(raw, error);
  addSecurityHeaders(null, response.headers, securitySettings(svc));
  return response;
}

/** The request's URL, parsed once for the whole pipeline (undefined if it does not parse). */
function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * As the reference does, a GET for `/db/` or `/db/table/` that would 404 redirects (302) to the
 * path without its trailing slashes, query string kept: clients and habits built on it work.
 */
async function routeOrStripSlash(svc: Service, request: Request): Promise<Response> {
  try {
    return await route(svc, request);
  } catch (error) {
    const readable = request.method === "GET" || request.method === "HEAD";
    const path = request.path;
    if (!(error instanceof NotFound) || !readable || !/[^/]\/+$/.test(path)) throw error;
    const target = path.replace(/\/+$/, "");
    return Response.redirect(request.query_string ? `${target}?${request.query_string}` : target);
  }
}

async function route(svc: Service, request: Request): Promise<Response> {
  const path = routePath(request);
  const match = svc.state.router.match(request.method, path);
  // Metadata another process edited shows from this request on (one pragma when unchanged).
  await svc.metadata_edits.refresh();
  request.actor = await resolveActor(svc, request);
  if (isMethodMismatch(match)) {
    // Only the custom-page route matched: no page lives at this path for other methods.
    const nothingElse = svc.state.router.claimant(path)?.name === CUSTOM_PAGE_ROUTE;
    const allowed = nothingElse
      ? ["GET", "HEAD", "OPTIONS"]
      : await allowedAt(svc, request, path, match.allowedMethods);
    if (request.method === "OPTIONS") return optionsResponse(svc, allowed);
    if (nothingElse) throw new NotFound("Not found");
    // A 405 says the page exists: one naming a missing database or table is a 404 instead.
    await ensureNamedExists(svc, request, path);
    throw new MethodNotAllowed(`Method ${request.method} not allowed`, { allowed });
  }
  if (!match) throw new NotFound("Not found");
  request.url_vars = match.url_vars;
  noteRoute(request.raw, match.route.name ?? "none");
  requestState(request).hasJsonTwin = match.route.pattern.source.includes("(?<format>");
  await enforceCsrf(svc, request);
  // Pages of immutable databases: answered 304 when the client already has them (`conditional.ts`).
  const tag = await pageTag(svc, request, match.route.name ?? "");
  if (tag && matches(request, tag)) {
    // Most of these pages embed a URL made from the Host header (the HTML page's Link header,
    // a JSON page's next_url), which keeps them out of shared caches: so does their 304.
    requestState(request).embedsHost ||= requestState(request).hostFromHeader;
    return notModified(svc, request, tag);
  }
  // And sent whole, without running the view, when kept from an earlier request (`page_cache.ts`).
  const pages = tag && request.method === "GET" && request.args.get("_trace") === null
    ? svc.pageCache()
    : null;
  const pageKey = pages && pageCacheKey(request, tag!);
  const kept = pageKey && pages!.get(pageKey);
  if (kept) return kept;
  try {
    const response = await (match.view as View)(svc, request);
    if (tag && response.status === 200) response.headers["etag"] = tag;
    if (pageKey) pages!.put(pageKey, response);
    return response;
  } catch (error) {
    if (!(error instanceof NotFound) || match.route.name === CUSTOM_PAGE_ROUTE) throw error;
    // `/about` looks like a database URL; a custom page of that path wins over the 404.
    const pages = svc.state.router.routes.find((route) => route.name === CUSTOM_PAGE_ROUTE);
    const readable = request.method === "GET" || request.method === "HEAD";
    if (pages && readable && pages.pattern.test(path)) {
      try {
        return await (pages.view as View)(svc, request);
      } catch (pageError) {
        if (!(pageError instanceof NoCustomPage)) throw pageError;
      }
    }
    const tilde = await tildeFormOf(svc, request);
    if (tilde) return Response.redirect(tilde);
    throw error;
  }
}

/**
 * Links written with percent-encoding predate tilde encoding; a GET that 404s with `%XX` in its
 * path is sent to the tilde form: `~` becomes `~7E` and `%XX` `~XX`. The reference also turns
 * every `.` into `~2E`, which is right when the dot belongs to a name
 * (`/db/table%2Fwith%2Fslashes.csv`, the table called `table/with/slashes.csv`) and loses the
 * format of an old JSON or CSV link (`/db/reports%2F2024.json`); so the dots are encoded when the
 * name with its dot is a table, view or canned query of the database, and kept otherwise.
 */
async function tildeFormOf(svc: Service, request: Request): Promise<string | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  // Only database, table and row URLs use tilde encoding; static paths must not be rewritten.
  const routed = routePath(request);
  if (!request.url_vars?.database || !/%[0-9A-Fa-f]{2}/.test(routed)) return null;
  const kept = routed.replaceAll("~", "~7E")
    .replace(/%([0-9A-Fa-f]{2})/g, (_, hex) => `~${hex.toUpperCase()}`);
  const dotted = kept.replaceAll(".", "~2E");
  const path = dotted !== kept && await namesTable(svc, request, dotted) ? dotted : kept;
  const prefixed = String(svc.urls.path(path));
  return request.query_string ? `${prefixed}?${request.query_string}` : prefixed;
}

/** True when `/<db>/<name>` (tilde-encoded) names a table, view or canned query of `db`. */
async function namesTable(svc: Service, request: Request, path: string): Promise<boolean> {
  const [, database, name] = path.split("/");
  if (!database || !name) return false;
  const db = databaseForRoute(svc.databases, tilde_decode(database));
  if (!db) return false;
  const table = tilde_decode(name);
  return await db.table_exists(table) || await db.view_exists(table) ||
    await cannedQueryFor(svc, db.name, table, request.actor ?? null) !== null;
}

/**
 * The methods `path` answers. The route of `/<db>/<name>` takes POST for writable canned queries;
 * a table, a view or a read-only query there does not, and `Allow` says so.
 */
async function allowedAt(
  svc: Service,
  request: Request,
  path: string,
  methods: string[],
): Promise<string[]> {
  const claimant = svc.state.router.claimant(path);
  if (!methods.includes("POST") || claimant?.name !== "table") return methods;
  const names = claimant.pattern.exec(path)?.groups;
  const db = names && databaseForRoute(svc.databases, tilde_decode(names.database));
  const query = db &&
    await cannedQueryFor(svc, db.name, tilde_decode(names.table), request.actor ?? null);
  return query?.write ? methods : methods.filter((method) => method !== "POST");
}

/**
 * Throws the 404 a GET would give when `path` names a database, table or canned query that does
 * not exist (`POST /nope`, `POST /db/nope/1`): no page lives there for any method.
 */
async function ensureNamedExists(svc: Service, request: Request, path: string): Promise<void> {
  const claimant = svc.state.router.claimant(path);
  if (!claimant || !["database", "table", "row"].includes(claimant.name ?? "")) return;
  // `/about` looks like a database URL: a custom page there exists, for GET.
  const dirs = [
    ...(svc.options.template_dir ? [svc.options.template_dir] : []),
    ...svc.registered.pluginTemplateDirs(),
  ];
  if (dirs.length && findCustomPage(path, dirs)) return;
  const groups = claimant.pattern.exec(path)?.groups ?? {};
  const probe = { url_vars: groups } as unknown as Request;
  const db = resolveDatabase(svc.databases, probe);
  if (claimant.name === "database") return;
  const table = tilde_decode(groups.table ?? "");
  if (claimant.name === "table") {
    if (await cannedQueryFor(svc, db.name, table, request.actor ?? null)) return;
    if (await svc.stored_queries.get(db.name, table)) return;
  }
  await resolveTable(svc.databases, probe);
}

/** Under base_url `/prefix/`, `/prefix/x` is routed as `/x`; paths outside the prefix are not. */
function stripBaseUrl(path: string, baseUrl: string): string | null {
  if (!baseUrl || baseUrl === "/") return path;
  const prefix = baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl;
  if (path !== prefix && !path.startsWith(prefix + "/")) return null;
  return path.slice(prefix.length) || "/";
}

function optionsResponse(svc: Service, methods: string[]): Response {
  const response = Response.text("ok");
  if (!svc.options.cors) response.headers["allow"] = methods.join(", ");
  return response;
}

function finish(svc: Service, request: Request, response: Response): globalThis.Response {
  const state = requestState(request);
  if (state.messagesToSet.length) {
    response.set_cookie("ds_messages", encodeMessages(svc.signer, state.messagesToSet), {
      httponly: true,
      secure: secureCookies(svc, request),
    });
  } else if (state.messagesShown) {
    response.set_cookie("ds_messages", "", {
      max_age: 0,
      expires: 0,
      httponly: true,
      secure: secureCookies(svc, request),
    });
  }
  if (state.csrfToken && state.csrfToken !== state.cookieCsrfToken) {
    response.set_cookie("ds_csrftoken", state.csrfToken, {
      path: "/",
      // Pages hand the token to scripts in the form (data-csrftoken); the cookie stays hidden.
      httponly: true,
      samesite: "lax",
      secure: secureCookies(svc, request),
    });
    appendVary(response, "Cookie");
  }
  // A page a browser may cache was made for these cookies: once they change (signing in, a
  // flash message after a write) the cached copy must not be shown.
  if (Object.keys(request.cookies).length && /max-age=[1-9]/.test(cacheControl(response))) {
    appendVary(response, "Cookie");
  }
  if (svc.options.cors) addCorsHeaders(response);
  if (state.hasJsonTwin && !request.url_vars.format) {
    // The page was HTML or JSON by the Accept header (`http/negotiation.ts`).
    appendVary(response, "Accept");
    if (response.status === 200) addAlternateLink(svc, request, response);
  }
  // Not for `?_trace=1`: the trace is added to the body text afterwards (trace_page.ts).
  if (!request.args.has("_trace")) compressResponse(request, response);
  const web = response.toWebResponse((headers) => {
    addSecurityHeaders(request, headers, securitySettings(svc));
    if (state.embedsHost) keepOutOfSharedCaches(headers);
  });
  if (request.method === "HEAD") {
    // A streamed body (a CSV stream, a file) must be released, not just dropped.
    web.body?.cancel().catch(() => {});
    // Its length is unknown: an empty stream keeps Deno from announcing `Content-Length: 0`.
    const unknownLength = web.body !== null && !web.headers.has("content-length") &&
      !NULL_BODY_STATUSES.has(web.status);
    const body = unknownLength ? new ReadableStream({ start: (c) => c.close() }) : null;
    return new globalThis.Response(body, { status: web.status, headers: web.headers });
  }
  return web;
}

/** Statuses a `Response` may not have a body with, not even an empty stream. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** HTML pages point at their JSON twin: `Link: <…json>; rel="alternate"`. */
function addAlternateLink(svc: Service, request: Request, response: Response): void {
  if (!String(response.content_type ?? "").startsWith("text/html")) return;
  const url = alternateJsonUrl(svc, request);
  const link = `<${url}>; rel="alternate"; type="application/json+datasette"`;
  const current = response.headers["link"];
  response.headers["link"] = current ? `${current}, ${link}` : link;
}

function securitySettings(svc: Service) {
  return { frameAncestors: String(svc.setting("frame_ancestors")) };
}

/**
 * The response shows a URL made from the visitor's own Host header: a shared cache must not keep
 * it for others (who might be shown a host an attacker chose). The browser's own cache may.
 */
function keepOutOfSharedCaches(headers: HeaderAccess): void {
  const current = headers.get("cache-control");
  if (!current || /\b(private|no-store)\b/i.test(current)) return;
  const rest = current.split(",").map((part) => part.trim())
    .filter((part) => part && !/^(public|s-maxage=\d+)$/i.test(part));
  headers.set("cache-control", ["private", ...rest].join(", "));
}

/** Cookies are `Secure` whenever the site is reached over HTTPS (or says it is). */
function secureCookies(svc: Service, request: Request): boolean {
  return request.scheme === "https" || Boolean(svc.setting("force_https_urls"));
}

function cacheControl(response: Response): string {
  const key = Object.keys(response.headers).find((name) => name.toLowerCase() === "cache-control");
  return key ? response.headers[key] : "";
}

function addCorsHeaders(response: Response): void {
  response.headers["access-control-allow-origin"] = "*";
  response.headers["access-control-allow-headers"] = "Authorization, Content-Type";
  response.headers["access-control-expose-headers"] = "Link";
  response.headers["access-control-allow-methods"] = "GET, POST, HEAD, OPTIONS";
  response.headers["access-control-max-age"] = "3600";
}
