/**
 * The stored-query lists `/<db>/-/queries(.json)` and `/-/queries(.json)`: the queries the actor
 * may see, with the reference's filters (`q`, `is_private`, `is_write`, `source`, `owner_id`) and
 * pages (`_size`, `_next`), ordered by title (or name).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import type { StoredQuery } from "../../db/stored_queries.ts";
import { renderPage } from "../../render/render_page.ts";
import { pathWithReplacedArgs } from "../../render/url_helpers.ts";
import { tilde_decode, tilde_encode } from "../../util/tilde.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { mayChangeStoredQuery, mayStoreQuery, storedQueryVisibility } from "./stored_access.ts";
import { storedQueryJson } from "./stored_queries.ts";

/** The stored queries of `database` (or all databases) that the actor may see. */
async function visibleQueries(
  svc: ViewHost,
  request: Request,
  database: string | null,
): Promise<{ query: StoredQuery; private: boolean }[]> {
  const names = database === null
    ? new Set((await visibleDatabases(svc, request.actor)).map(({ db }) => db.name))
    : null;
  const q = (request.args.get("q") ?? "").toLowerCase();
  const filters = listFilters(request);
  const found = [];
  for (const query of await svc.stored_queries.list(database)) {
    if (names && !names.has(query.database)) continue;
    if (!filters.every(([key, value]) => String(query[key]) === value)) continue;
    if (
      q &&
      ![query.name, query.title, query.description, query.sql].some((text) =>
        (text ?? "").toLowerCase().includes(q)
      )
    ) continue;
    const [visible, isPrivate] = await storedQueryVisibility(svc, request.actor, query);
    if (visible) found.push({ query, private: isPrivate });
  }
  return found;
}

/** `?is_private=`, `is_write=`, `source=`, `owner_id=`: the reference's list filters. */
function listFilters(request: Request): [keyof StoredQuery, string][] {
  const filters: [keyof StoredQuery, string][] = [];
  for (const key of ["is_private", "is_write"] as const) {
    const value = request.args.get(key);
    if (value === null || value === "") continue;
    if (!/^(0|1|true|false)$/i.test(value)) throw new BadRequest(`${key} must be 0 or 1`);
    filters.push([key, String(/^(1|true)$/i.test(value))]);
  }
  for (const key of ["source", "owner_id"] as const) {
    const value = request.args.get(key);
    if (value) filters.push([key, value]);
  }
  return filters;
}

/** The list's sort position of a query as a `_next` token (tilde-encoded parts). */
function listKey(query: StoredQuery, global: boolean): string[] {
  const parts = [(query.title || query.name).toLowerCase(), query.name];
  return global ? [query.database, ...parts] : parts;
}

/**
 * One page of `found` (already in list order): `_size` entries (default 50, 20 on the HTML
 * page; at most 1,000) after the `_next` token's entry.
 */
function listPage<T extends { query: StoredQuery }>(
  request: Request,
  found: T[],
  global: boolean,
  html: boolean,
): { page: T[]; next: string | null; limit: number } {
  const size = request.args.get("_size");
  if (size !== null && !/^\d+$/.test(size)) throw new BadRequest("_size must be a whole number");
  const limit = Math.min(Math.max(Number(size ?? (html ? 20 : 50)) || 1, 1), 1000);
  const token = request.args.get("_next");
  let start = 0;
  if (token) {
    const after = token.split(",").map(tilde_decode);
    const compare = (key: string[]) => {
      for (let i = 0; i < key.length; i++) {
        const order = key[i].localeCompare(after[i] ?? "");
        if (order) return order;
      }
      return 0;
    };
    start = found.findIndex(({ query }) => compare(listKey(query, global)) > 0);
    if (start < 0) start = found.length;
  }
  const page = found.slice(start, start + limit);
  const more = start + limit < found.length;
  const last = page.at(-1);
  const next = more && last ? listKey(last.query, global).map(tilde_encode).join(",") : null;
  return { page, next, limit };
}

/** `/<db>/-/queries(.json)` and `/-/queries(.json)`. */
export async function storedQueryListView(svc: ViewHost, request: Request): Promise<Response> {
  const db = request.url_vars.database ? svc.resolve_database(request) : null;
  if (db) {
    await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
  } else await svc.ensure_permissions(request.actor, ["view-instance"]);
  const json = request.url_vars.format === "json";
  const { page: found, next, limit } = listPage(
    request,
    await visibleQueries(svc, request, db?.name ?? null),
    db === null,
    !json,
  );
  const next_url = next
    ? svc.absolute_url(request, pathWithReplacedArgs(request, { _next: next }))
    : null;
  if (json) {
    return Response.json({
      ok: true,
      database: db?.name ?? null,
      queries: found.map(({ query, private: p }) => storedQueryJson(query, p)),
      next,
      next_url,
      limit,
    });
  }
  if (request.url_vars.format) throw new BadRequest("Only .json is available for this page");
  const queries = [];
  for (const { query, private: p } of found) {
    queries.push({
      ...storedQueryJson(query, p),
      url: String(svc.urls.query(query.database, query.name)),
      edit_url: await mayChangeStoredQuery(svc, request.actor, query, "update-query")
        ? `${svc.urls.query(query.database, query.name)}/-/edit`
        : null,
      delete_url: await mayChangeStoredQuery(svc, request.actor, query, "delete-query")
        ? `${svc.urls.query(query.database, query.name)}/-/delete`
        : null,
    });
  }
  return await renderPage(svc, request, "query_list.html", {
    database: db?.name ?? null,
    queries,
    q: request.args.get("q") ?? "",
    next_url,
    store_url: db && await mayStoreQuery(svc, request.actor, db)
      ? `${svc.urls.database(db.name)}/-/queries/store`
      : null,
  }, { view_name: "query_list", database: db?.name ?? null });
}
