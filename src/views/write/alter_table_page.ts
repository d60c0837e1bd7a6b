/**
 * `GET /<db>/<table>/-/alter-table`: the table's columns as a form (rename, change the type,
 * NOT NULL, drop, add columns). The page's script turns the changes into `/-/alter` operations,
 * shows the resulting schema and every statement from a dry run, and applies them only when
 * asked. Primary keys, foreign keys and column order are changed through the API.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { renderPage } from "../../render/render_page.ts";
import { requireActions, requireMutable, requireVisible, targetTable } from "./target.ts";

/** The types offered; a column declared otherwise keeps its own type as an extra choice. */
const TYPES = ["TEXT", "INTEGER", "FLOAT", "REAL", "NUMERIC", "BLOB"];

/** The alter-table page; 403 without `alter-table`. */
export async function alterTablePage(svc: ViewHost, request: Request): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new MethodNotAllowed("Method not allowed", { allowed: ["GET"] });
  }
  const { db, table } = await targetTable(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["alter-table"], db.name, table);
  requireMutable(db);
  const columns = (await db.table_column_details(table)).map((column) => ({
    name: String(column.name),
    type: String(column.type ?? "").toUpperCase(),
    notnull: Boolean(column.notnull),
    is_pk: Boolean(column.is_pk),
  }));
  return await renderPage(svc, request, "alter_table.html", {
    database: db.name,
    table,
    columns,
    column_types: TYPES,
    alter_url: `${svc.urls.table(db.name, table)}/-/alter`,
    table_url: String(svc.urls.table(db.name, table)),
  }, { view_name: "alter_table" });
}
