/**
 * `GET /<db>/<table>/-/alter-table`: the table's columns as a form (rename, change the type,
 * NOT NULL, default, primary key, the foreign key each holds, order (not on PostgreSQL, which
 * cannot move a column); drop and add columns). The
 * page's script (static/alter-table.js) turns the changes into `/-/alter` operations, shows the
 * resulting schema and every statement from a dry run, and applies them only when asked.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { renderPage } from "../../render/render_page.ts";
import { requireActions, requireMutable, requireVisible, targetTable } from "./target.ts";
import { foreignKeyTargets } from "./key_columns.ts";

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
  const references = new Map<string, string>();
  for (const fk of await db.foreign_keys_for_table(table)) {
    references.set(fk.column, JSON.stringify({ table: fk.other_table, column: fk.other_column }));
  }
  const targets = await foreignKeyTargets(svc, request.actor, db);
  const columns = (await db.table_column_details(table)).map((column) => ({
    name: String(column.name),
    type: String(column.type ?? "").toUpperCase(),
    notnull: Boolean(column.notnull),
    is_pk: Boolean(column.is_pk),
    default: defaultText(column.default_value),
    references: references.get(String(column.name)) ?? "",
  }));
  // A key the column holds already is offered even where it points at no key column.
  for (const value of new Set(references.values())) {
    const { table: other, column } = JSON.parse(value);
    if (!(targets[other] ?? []).includes(column)) (targets[other] ??= []).push(column);
  }
  return await renderPage(svc, request, "alter_table.html", {
    database: db.name,
    table,
    columns,
    column_types: TYPES,
    // PostgreSQL alters tables in place and has no way to move a column.
    can_reorder: db.engine === "sqlite",
    key_columns: JSON.stringify(targets),
    alter_url: `${svc.urls.table(db.name, table)}/-/alter`,
    table_url: String(svc.urls.table(db.name, table)),
  }, { view_name: "alter_table", database: db.name, table });
}

/**
 * A column's default as the page's field shows it: a quoted literal without its quotes, a number
 * or an expression as written (`CURRENT_TIMESTAMP` in lower case, as `default_expr` names it).
 */
function defaultText(value: unknown): string {
  if (value === null || value === undefined) return "";
  const sql = String(value);
  // PostgreSQL shows a literal with its type: `'x'::text`.
  const quoted = sql.match(/^'(.*)'(?:::[a-z][a-z ]*(?:\(\d+(?:,\d+)?\))?)?$/s);
  if (quoted) return quoted[1].replaceAll("''", "'");
  if (/^current_(timestamp|date|time)$/i.test(sql)) return sql.toLowerCase();
  return sql;
}
