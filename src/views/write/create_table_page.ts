/**
 * `GET /-/create-table[?database=name]`: a form for a new table in any database the actor may
 * create tables in: columns with every type `/-/create` takes (SQLite's and the registered column
 * types), NOT NULL, defaults, a primary key of one or more columns and foreign keys to the
 * database's tables, or columns read from pasted CSV/TSV rows. The page's script
 * (static/create-table.js) previews the SQL with a dry run, posts it to `/<db>/-/create` and
 * opens the new table.
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
import { CREATE_TYPES } from "./create.ts";
import { foreignKeyTargets } from "./key_columns.ts";

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
      engine: db.engine,
      create_url: `${svc.urls.database(db.name)}/-/create`,
      selected: db.name === request.args.get("database"),
      // What its foreign keys may point at, for the page's "references" choices.
      key_columns: JSON.stringify(await foreignKeyTargets(svc, request.actor, db)),
    });
  }
  if (!databases.length) {
    throw new Forbidden("Permission denied: need create-table", { title: "Permission denied" });
  }
  return await renderPage(svc, request, "create_table.html", {
    databases,
    // Where the SQLite type names offered become other types (`postgres_ddl.ts`).
    postgres_databases: databases.filter((d) => d.engine === "postgres").map((d) => d.name),
    sqlite_types: Object.keys(CREATE_TYPES),
    column_types: svc.columnTypes.all().map((type) => type.type_name),
  }, { view_name: "create_table" });
}
