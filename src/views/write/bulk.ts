/**
 * `POST /<db>/<table>/-/update-rows` (`{"pks": [...], "update": {...}, "return"?}`) and
 * `POST /<db>/<table>/-/delete-rows` (`{"pks": [...]}`): several rows changed or deleted in one
 * transaction (the reference has only the one-row endpoints). Each entry of `pks` names a row by
 * its primary key: a value for a one-column key (or a rowid), a list of values for a compound
 * key. When one row is missing or cannot take the change, nothing changes and the 400 names it.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { deleteRows, keyColumns, updateRows } from "../../db/row_bulk.ts";
import { isObject, type JsonObject, jsonObjectBody, rejectUnknownKeys } from "./body.ts";
import {
  requireActions,
  requireMutable,
  requireVisible,
  targetTable,
  type WriteTable,
} from "./target.ts";
import { flash, rowsResponse, rowsText, runRowWrites, runWrite } from "./run_write.ts";
import { DeleteRowEvent, UpdateRowEvent } from "../../plugins/events.ts";
import { checkTypedValues } from "../typed_columns.ts";

/** `/<table>/-/update-rows`: 200 `{"ok": true, "count": n}`, with `"rows"` when asked for. */
export async function bulkUpdateView(svc: ViewHost, request: Request): Promise<Response> {
  const target = await bulkTarget(svc, request, "update-row");
  const { db, table } = target;
  const data = await jsonObjectBody(request);
  rejectUnknownKeys(data, ["pks", "update", "return"]);
  const keyList = parseKeys(svc, target, data);
  if (!isObject(data.update) || !Object.keys(data.update).length) {
    throw new BadRequest('JSON must contain an "update" dictionary naming at least one column');
  }
  const update = data.update;
  const known = new Set([...await db.table_columns(table), ...keyColumns(target)].map(fold));
  const unknown = Object.keys(update).filter((column) => !known.has(fold(column))).sort();
  if (unknown.length) throw new BadRequest(`Invalid columns: ${unknown.join(", ")}`);
  await checkTypedValues(svc, db.name, table, [update]);
  const returning = Boolean(data.return);
  // PostgreSQL has no SQLite write connection: its own transaction (`postgres_writes.ts`).
  const result = db.row_writes
    ? await runRowWrites(
      svc,
      request,
      db,
      (writes) => writes.updateRows(target, keyList, update, { returning }),
    )
    : await runWrite(
      svc,
      request,
      db,
      (conn) => updateRows(conn, target, keyList, update, { returning }),
    );
  for (const key of keyList) {
    await svc.track_event(
      new UpdateRowEvent({ actor: request.actor, database: db.name, table, pks: [...key] }),
    );
  }
  flash(svc, request, `${rowsText(result.count)} updated`);
  const body: JsonObject = { ok: true, count: result.count };
  if (result.rows) body.rows = result.rows;
  return await rowsResponse(db, table, body);
}

/** `/<table>/-/delete-rows`: 200 `{"ok": true, "count": n}`. */
export async function bulkDeleteView(svc: ViewHost, request: Request): Promise<Response> {
  const target = await bulkTarget(svc, request, "delete-row");
  const { db, table } = target;
  const data = await jsonObjectBody(request);
  rejectUnknownKeys(data, ["pks"]);
  const keyList = parseKeys(svc, target, data);
  const count = db.row_writes
    ? await runRowWrites(svc, request, db, (writes) => writes.deleteRows(target, keyList))
    : await runWrite(svc, request, db, (conn) => deleteRows(conn, target, keyList));
  for (const key of keyList) {
    await svc.track_event(
      new DeleteRowEvent({ actor: request.actor, database: db.name, table, pks: [...key] }),
    );
  }
  flash(svc, request, `${rowsText(count)} deleted`);
  return await rowsResponse(db, table, { ok: true, count });
}

/** The table, once the actor is known to see it and hold `action`, and it accepts writes. */
async function bulkTarget(svc: ViewHost, request: Request, action: string): Promise<WriteTable> {
  const target = await targetTable(svc, request);
  await requireVisible(svc, request.actor, target.db.name, target.table);
  await requireActions(svc, request, [action], target.db.name, target.table);
  requireMutable(target.db);
  return target;
}

/**
 * `pks` as one value list per row, each key once: a list of 1 to `max_insert_rows` entries, each
 * a value (one-column keys and rowids) or a list of as many values as the key has columns.
 */
function parseKeys(svc: ViewHost, target: WriteTable, data: JsonObject): unknown[][] {
  const columns = keyColumns(target);
  const pks = data.pks;
  if (!Array.isArray(pks) || !pks.length) {
    throw new BadRequest('JSON must contain a "pks" list naming at least one row');
  }
  const max = Number(svc.setting("max_insert_rows"));
  if (pks.length > max) throw new BadRequest(`Too many rows, maximum allowed is ${max}`);
  const seen = new Set<string>();
  const keyList: unknown[][] = [];
  for (const [i, entry] of pks.entries()) {
    const key = Array.isArray(entry) ? entry : [entry];
    const scalar = (value: unknown) =>
      value !== null && (typeof value !== "object" || !isObject(value) && !Array.isArray(value));
    if (key.length !== columns.length || !key.every(scalar)) {
      throw new BadRequest(
        `pks[${i}] does not match the primary key (${columns.join(", ")}): ` +
          `give ${columns.length === 1 ? "its value" : `a list of ${columns.length} values`}`,
      );
    }
    // "1" and 1 name the same row of an INTEGER key: one entry each, as SQLite compares them.
    const id = key.map(String).join("\u0000");
    if (seen.has(id)) continue;
    seen.add(id);
    keyList.push(key);
  }
  return keyList;
}

// SQLite compares column names without case.
function fold(name: string): string {
  return name.toLowerCase();
}
