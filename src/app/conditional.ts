/**
 * `ETag` and `304 Not Modified` for the data pages of database files (table, view and row pages
 * in every format). A page is a function of what the file holds — an immutable file's SHA-256, a
 * mutable file's `PRAGMA data_version`, which every commit changes (`db/data_version.ts`) — and
 * of what the request says: the URL, the actor, the cookies, the
 * `Accept` header (content negotiation) and the configuration served — version, templates,
 * plugins, metadata and settings, fixed while the process runs (`instance_token.ts`), and the same
 * on every replica started alike — and the metadata edited and column types set while serving
 * (`db/metadata_edits.ts`, `db/column_type_store.ts`). The tag is computed from those before the view runs,
 * and a request whose `If-None-Match` holds it is answered `304` without running any query.
 *
 * Left out, because their SQL may call `random()` or read the clock: custom SQL, canned and
 * stored queries (which also change without the file),
 * `_where=` clauses, views that call such functions (`db/repeatable.ts`), and every table page
 * while a `filters_from_request` plugin is installed. Memory databases never get a tag, nor does
 * a mutable file while its version cannot be read without waiting (it is being written).
 *
 * @module
 */

import { fingerprint, type FingerprintPrefix, fingerprintPrefix } from "../util/hash.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { resolveTable } from "./resolve.ts";
import type { ResolvedTable } from "../views/host.ts";
import type { AppHost } from "./host.ts";
import { cacheHeaders, ROWS_REFERRER_POLICY } from "../render/output_format.ts";
import { cannedQueryFor } from "../config/canned_query_catalog.ts";
import { instanceToken } from "./instance_token.ts";

/** Routes whose pages may carry a tag (see the module comment). */
const PAGE_ROUTES = new Set(["table", "row"]);

/**
 * The weak ETag of this request's page, or null when the page may not have one. Call after
 * routing and actor resolution, before the view.
 */
export async function pageTag(
  svc: AppHost,
  request: Request,
  routeName: string,
): Promise<string | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (!PAGE_ROUTES.has(routeName)) return null;
  const args = request.args;
  if (args.get("_where") !== null || args.get("sql") !== null) return null;
  if (svc.hooks.has("filters_from_request")) return null;
  let resolved: ResolvedTable;
  try {
    // The view resolves the same table next: the answer is kept for the request.
    resolved = await resolveTable(svc.databases, request);
  } catch {
    return null;
  }
  const { db, table: name, is_view } = resolved;
  if (db.is_memory || db.path === null) return null;
  // A table always reads the same for the same data; a view only when it calls nothing random.
  if (is_view && !await db.is_repeatable(name)) return null;
  // A canned query of the same name is what `/<db>/<name>` shows (views/table/table_or_query.ts).
  if (await cannedQueryFor(svc, db.name, name, request.actor ?? null)) return null;
  // So is a stored query (a table made later with its name): it changes without the file.
  if (await svc.stored_queries.get(db.name, name)) return null;
  // Read last, just before the view reads the data: what a mutable file holds may change.
  const contents = db.contentsKey();
  if (contents === null) return null;
  const parts = [
    request.path,
    request.query_string,
    JSON.stringify(request.actor ?? null),
    request.headers["cookie"] ?? "",
    request.url_vars.format ? "" : request.headers["accept"] ?? "",
    // Metadata edited while serving shows on these pages at once (`db/metadata_edits.ts`).
    svc.metadata_edits.key,
    // So do column types set while serving (`db/column_type_store.ts`).
    await svc.column_type_store.key(),
  ];
  return `W/"${fingerprint(parts.join("\u0000"), servedPrefix(contents, instanceToken(svc)))}"`;
}

/** The fingerprint state after `contents` and `token`, the long part every page of a file shares. */
const prefixes = new Map<string, FingerprintPrefix>();

function servedPrefix(contents: string, token: string): FingerprintPrefix {
  const key = `${contents}\u0000${token}\u0000`;
  let prefix = prefixes.get(key);
  if (!prefix) {
    // A mutable file's contents change with every write: keep the latest few.
    if (prefixes.size >= 64) prefixes.delete(prefixes.keys().next().value!);
    prefixes.set(key, prefix = fingerprintPrefix(key));
  }
  return prefix;
}

/** True when `If-None-Match` lists `tag` (or `*`), compared weakly as RFC 9110 says. */
export function matches(request: Request, tag: string): boolean {
  const header = request.headers["if-none-match"];
  if (!header) return false;
  const opaque = (value: string) => value.trim().replace(/^W\//, "");
  return header.split(",").some((value) => value.trim() === "*" || opaque(value) === opaque(tag));
}

/**
 * The `304 Not Modified` answer for `tag`, with the headers a `200` would have that describe it
 * to caches (`Cache-Control`, `Vary`, `Referrer-Policy`) and no `Content-Type`, which a cache
 * would otherwise copy onto the copy it keeps.
 */
export function notModified(svc: AppHost, request: Request, tag: string): Response {
  return new Response("", {
    status: 304,
    content_type: null,
    headers: {
      etag: tag,
      ...cacheHeaders(svc, request),
      vary: "Accept-Encoding",
      "referrer-policy": ROWS_REFERRER_POLICY,
    },
  });
}
