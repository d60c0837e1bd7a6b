/**
 * `GET /-/create-table[?database=name]`: a form for a new table (name, columns and their types,
 * primary key) in any database the actor may create tables in. The page's script posts it to
 * `/<db>/-/create` and opens the new table.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { Forbidden, MethodNotAllowed } from "../../http/errors.ts";
import { renderPage } from "../../render/render_page.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { allowed } from "./target.ts";

/** The create-table page; 403 when the actor may create tables nowhere. */
export async function createTablePage(svc: ViewHost, request: Request): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new MethodNotAllowed("Method not allowed", { allowed: ["GET"] });
  }
  const databases = [];
  for (const { db } of await visibleDatabases(svc, request.actor)) {
    if (!db.is_mutable) continue;
    if (!(await allowed(svc, request.actor, "create-table", db.name, null))) continue;
    databases.push({
      name: db.name,
      create_url: `${svc.urls.database(db.name)}/-/create`,
      selected: db.name === request.args.get("database"),
    });
  }
  if (!databases.length) {
    throw new Forbidden("Permission denied: need create-table", { title: "Permission denied" });
  }
  return await renderPage(svc, request, "create_table.html", {
    databases,
    column_types: ["text", "integer", "float", "blob"],
  }, { view_name: "create_table" });
}
