/**
 * `POST /<db>/<table>/-/drop`. Without `{"confirm": true}` nothing is dropped: the answer says
 * how many rows the table holds and how to confirm. With it, the table goes.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { dropTable } from "../../db/table_writes.ts";
import { isObject, optionalJsonBody } from "./body.ts";
import { requireActions, requireMutable, requireVisible, targetTable } from "./target.ts";
import { flash, runRowWrites, runWrite } from "./run_write.ts";
import { DropTableEvent } from "../../plugins/events.ts";

/** `/-/drop`: 200 with the row count and a message, or 200 `{"ok": true}` once confirmed. */
export async function dropTableView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table } = await targetTable(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["drop-table"], db.name, table);
  requireMutable(db);
  const data = await optionalJsonBody(request);
  if (!isObject(data) || data.confirm !== true) {
    const count = await db.execute(`select count(*) from ${db.dialect.tableName(table)}`);
    return Response.json({
      ok: true,
      database: db.name,
      table,
      row_count: count.single_value(),
      message: 'Pass "confirm": true to confirm',
    });
  }
  // PostgreSQL has no SQLite write connection: its own transaction (`postgres_writes.ts`).
  if (db.row_writes) await runRowWrites(svc, request, db, (writes) => writes.dropTable(table));
  else await runWrite(svc, request, db, (conn) => dropTable(conn, table));
  await svc.refresh_catalog();
  await svc.track_event(new DropTableEvent({ actor: request.actor, database: db.name, table }));
  flash(svc, request, `Table ${table} dropped`);
  return Response.json({ ok: true });
}
