/**
 * Who may see and change a stored query. A private query is seen by its owner and the actors it
 * is shared with, and by nobody else whatever else they may do (as in the reference, an
 * operator's grants cannot open someone's private query); a query shared with the instance is
 * seen by everyone who may see its database and `view-query` it. The owner may update and
 * delete their query; anyone else needs `update-query` / `delete-query` granted on it, and to
 * see it.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { StoredQuery } from "../../db/stored_queries.ts";
import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { Forbidden, NotFound } from "../../http/errors.ts";
import { tilde_decode } from "../../util/tilde.ts";
import type { Request } from "../../http/request.ts";

/** The actor's id as text, or null for anonymous visitors. */
export function actorId(actor: Actor | null | undefined): string | null {
  const id = actor?.id;
  return id === undefined || id === null ? null : String(id);
}

/** True when the query's sharing lets `actor` in (before any permission). */
function sharedWith(actor: Actor | null, query: StoredQuery): boolean {
  if (!query.is_private) return true;
  const id = actorId(actor);
  return id !== null && (id === query.owner_id || query.shared_with.includes(id));
}

/** `[visible, private]` of a stored query for `actor`, as `check_visibility` answers. */
export async function storedQueryVisibility(
  svc: ViewHost,
  actor: Actor | null,
  query: StoredQuery,
): Promise<[boolean, boolean]> {
  if (!sharedWith(actor, query)) return [false, false];
  const [visible, isPrivate] = await svc.check_visibility(actor, {
    action: "view-query",
    resource: [query.database, query.name],
  });
  return [visible, visible && (isPrivate || query.is_private)];
}

/** True when `actor` may `update-query` or `delete-query` this query. */
export async function mayChangeStoredQuery(
  svc: ViewHost,
  actor: Actor | null,
  query: StoredQuery,
  action: "update-query" | "delete-query",
): Promise<boolean> {
  if (!(await storedQueryVisibility(svc, actor, query))[0]) return false;
  const id = actorId(actor);
  if (id !== null && id === query.owner_id) return true;
  return Boolean(
    await svc.permission_allowed(actor, action, [query.database, query.name], false),
  );
}

/** True when `actor` may store queries in `db`: `store-query` and `execute-sql`, signed in. */
export async function mayStoreQuery(
  svc: ViewHost,
  actor: Actor | null,
  db: Database,
): Promise<boolean> {
  if (actorId(actor) === null) return false;
  return Boolean(await svc.permission_allowed(actor, "store-query", db.name, false)) &&
    Boolean(await svc.permission_allowed(actor, "execute-sql", db.name));
}

/** 403 unless {@link mayStoreQuery}. */
export async function ensureMayStore(svc: ViewHost, actor: Actor | null, db: Database) {
  if (!(await mayStoreQuery(svc, actor, db))) {
    throw new Forbidden("Permission denied: need store-query", { title: "Permission denied" });
  }
}

/**
 * The stored query named in the URL (`/<db>/<query>/-/…`) and its database, for `action`: a 404
 * when there is none or the actor may not see it (a private query's name is not given away),
 * a 403 when they see it but may not do `action`.
 */
export async function storedQueryFromUrl(
  svc: ViewHost,
  request: Request,
  action: "view-query" | "update-query" | "delete-query",
): Promise<{ db: Database; query: StoredQuery }> {
  const db = svc.resolve_database(request);
  const name = tilde_decode(request.url_vars.query);
  const query = await svc.stored_queries.get(db.name, name);
  if (!query || !(await storedQueryVisibility(svc, request.actor, query))[0]) {
    throw new NotFound(`Query not found: ${name}`);
  }
  if (action !== "view-query" && !(await mayChangeStoredQuery(svc, request.actor, query, action))) {
    throw new Forbidden(`Permission denied: need ${action}`, { title: "Permission denied" });
  }
  return { db, query };
}

/** A stored query as the canned query pages run it. */
export function storedQueryDefinition(query: StoredQuery): CannedQueryDefinition {
  return {
    name: query.name,
    sql: query.sql,
    title: query.title,
    description: query.description,
    description_html: query.description_html,
    hide_sql: query.hide_sql,
    fragment: query.fragment,
    params: query.parameters.length ? query.parameters : undefined,
    stored: true,
    is_private: query.is_private,
  };
}
