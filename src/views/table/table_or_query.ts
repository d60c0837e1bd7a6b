/**
 * `/<db>/<name>` is a canned query when the database has one of that name (from metadata or the
 * `canned_queries` hook), else a stored query the actor may see, otherwise a table or SQL view. Only canned queries accept POST.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { tilde_decode } from "../../util/tilde.ts";
import { cannedQueryFor } from "../../config/canned_query_catalog.ts";
import { cannedQueryView } from "../query/canned_query.ts";
import { tableView } from "./table.ts";
import { storedQueryDefinition, storedQueryVisibility } from "../query/stored_access.ts";

/** GET/POST `/<db>/<name>`. */
export async function tableOrCannedQueryView(svc: ViewHost, request: Request): Promise<Response> {
  const db = svc.resolve_database(request);
  const name = tilde_decode(request.url_vars.table);
  const query = await cannedQueryFor(svc, db.name, name, request.actor ?? null);
  if (query) return await cannedQueryView(svc, request, db, query);
  // A stored query the actor may not see is not there for them: the name is a table or a 404.
  const stored = await svc.stored_queries.get(db.name, name);
  if (stored && (await storedQueryVisibility(svc, request.actor, stored))[0]) {
    return await cannedQueryView(svc, request, db, storedQueryDefinition(stored));
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    // A 405 says the page exists: a name that is no table or view is a 404 for any method.
    await svc.resolve_table(request);
    throw new MethodNotAllowed("Only canned queries accept POST", { allowed: ["GET", "HEAD"] });
  }
  return await tableView(svc, request);
}
