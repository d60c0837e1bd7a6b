/**
 * What the database and table pages need for uploading a CSV file in the browser
 * (templates/_upload.html, static/upload.js): on a database page an actor with `create-table`
 * makes a new table of it, on a table page an actor with `insert-row` appends to the table. The
 * browser previews the file and sends it to `/<db>/<table>/-/upload` (upload.ts) in parts of at
 * most `max_post_body_bytes`, each read by the importer and inserted in one transaction. SQLite
 * databases only: the importer writes through a SQLite connection.
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
  if (!db?.is_mutable || db.engine !== "sqlite") return null;
  const part_bytes = Number(svc.setting("max_post_body_bytes"));
  const databaseUrl = String(svc.urls.database(database));
  if (view_name === "database") {
    if (!(await allowed(svc, request.actor, "create-table", database, null))) return null;
    return {
      upload_ui: {
        mode: "create",
        database_url: databaseUrl,
        part_bytes,
        // A cancelled upload offers to drop the table it created.
        can_drop: await allowed(svc, request.actor, "drop-table", database, null),
      },
    };
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
      upload_url: `${tableUrl}/-/upload`,
      columns: await db.table_columns(table),
      part_bytes,
    },
  };
}
