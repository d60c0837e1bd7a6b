/**
 * What the database and table pages need for uploading a CSV file in the browser
 * (templates/_upload.html, static/upload.js): on a database page an actor with `create-table`
 * makes a new table of it, on a table page an actor with `insert-row` appends to the table. The
 * browser parses the file (Papa Parse, static/vendor/csv.js) and sends its rows through the JSON
 * write API, `max_insert_rows` rows a request: each request is one transaction, so a failed batch
 * leaves none of its rows behind.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { allowed, protectedTable } from "./target.ts";

/** `upload_ui` for a database page (new table) or a table page (append), or null. */
export async function uploadVars(
  svc: ViewHost,
  request: Request | null,
  view_name: string,
  database: string | null,
  table: string | null,
): Promise<Record<string, unknown> | null> {
  if (!request || !database) return null;
  const db = svc.databases.get(database);
  if (!db?.is_mutable) return null;
  const batch = Number(svc.setting("max_insert_rows"));
  const databaseUrl = String(svc.urls.database(database));
  if (view_name === "database") {
    if (!(await allowed(svc, request.actor, "create-table", database, null))) return null;
    return { upload_ui: { mode: "create", create_url: `${databaseUrl}/-/create`, batch } };
  }
  if (view_name !== "table" || !table || protectedTable(db, table)) return null;
  if (!(await db.table_exists(table))) return null;
  if (!(await allowed(svc, request.actor, "insert-row", database, table))) return null;
  const tableUrl = String(svc.urls.table(database, table));
  return {
    upload_ui: {
      mode: "append",
      table,
      table_url: tableUrl,
      insert_url: `${tableUrl}/-/insert`,
      columns: await db.table_columns(table),
      batch,
    },
  };
}
