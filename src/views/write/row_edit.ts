/**
 * `POST /<db>/<table>/<pks>/-/update` (`{"update": {...}, "return"?, "alter"?}`) and
 * `POST /<db>/<table>/<pks>/-/delete`. `<pks>` is the row's tilde-encoded key, comma-separated
 * for compound keys, as in row URLs.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, Forbidden } from "../../http/errors.ts";
import { deleteRow, updateRow } from "../../db/row_writes.ts";
import { isObject, jsonObjectBody, rejectUnknownKeys } from "./body.ts";
import { allowed, requireActions, requireMutable, requireVisible, targetRow } from "./target.ts";
import { flash, rowsResponse, runRowWrites, runWrite } from "./run_write.ts";
import { DeleteRowEvent, UpdateRowEvent } from "../../plugins/events.ts";
import { checkTypedValues } from "../typed_columns.ts";

/**
 * `/-/update`: 200 `{"ok": true}`; with `"return": true` also the row afterwards, as 1.0's
 * `"rows": [row]` and as `"row"`, the key clients of the spec's era read.
 */
export async function updateView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table, pks, keyValues } = await targetRow(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["update-row"], db.name, table);
  requireMutable(db);

  const data = await jsonObjectBody(request);
  if (!isObject(data.update)) throw new BadRequest("JSON must contain an update dictionary");
  rejectUnknownKeys(data, ["update", "return", "alter"]);
  const alter = Boolean(data.alter);
  if (alter && !(await allowed(svc, request.actor, "alter-table", db.name, table))) {
    throw new Forbidden("Permission denied for alter-table");
  }
  const update = data.update;
  await checkTypedValues(svc, db.name, table, [update as Record<string, unknown>]);
  const returning = Boolean(data.return);
  const row = db.row_writes
    ? await runRowWrites(
      svc,
      request,
      db,
      (writes) => writes.update({ table, pks }, keyValues, update, { alter, returning }),
    )
    : await runWrite(
      svc,
      request,
      db,
      (conn) => updateRow(conn, { table, pks }, keyValues, update, { alter, returning }),
    );
  if (alter) await svc.refresh_catalog();
  await svc.track_event(
    new UpdateRowEvent({ actor: request.actor, database: db.name, table, pks: keyValues }),
  );
  flash(svc, request, "Row updated");
  return await rowsResponse(db, table, data.return ? { ok: true, row, rows: [row] } : { ok: true });
}

/** `/-/delete`: 200 `{"ok": true}`. */
export async function deleteView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table, pks, keyValues } = await targetRow(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["delete-row"], db.name, table);
  requireMutable(db);
  if (db.row_writes) {
    await runRowWrites(svc, request, db, (writes) => writes.delete({ table, pks }, keyValues));
  } else await runWrite(svc, request, db, (conn) => deleteRow(conn, { table, pks }, keyValues));
  await svc.track_event(
    new DeleteRowEvent({ actor: request.actor, database: db.name, table, pks: keyValues }),
  );
  flash(svc, request, `Row ${keyValues.join(", ")} deleted`);
  return Response.json({ ok: true });
}
