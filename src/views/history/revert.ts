/**
 * `POST /<db>/-/history/-/revert` with `{"change_id": N}` or `{"request_id": "…"}` (JSON, or a
 * form from a history page, CSRF-checked like every form): undoes one recorded change, or every
 * change of one request, newest first, in one transaction on the database's write queue, for
 * actors holding `revert-change`. Refused with a 409 naming the row when any row changed since
 * the change (its values are no longer the change's "after"); nothing is undone then. The revert
 * is a write like any other, so it is recorded too (each of its changes names the change it
 * reverted), and can itself be reverted.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, NotFound } from "../../http/errors.ts";
import { StatusError } from "../../util/errors.ts";
import { revertChanges } from "../../db/history/revert.ts";
import { rowKey } from "../../db/history/store.ts";
import { isObject, jsonObjectBody, rejectUnknownKeys } from "../write/body.ts";
import { requestId, runRowWrites, runWrite } from "../write/run_write.ts";
import { requireActions, requireMutable, requireVisible, targetDatabase } from "../write/target.ts";

/** What to revert, and (for a form) where to go afterwards. */
interface RevertBody {
  change_id: number | null;
  request_id: string | null;
  form: boolean;
  return_to: string | null;
}

/** The most changes one request's revert takes on. */
const MAX_CHANGES = 100_000;

/** POST `/-/history/-/revert`. */
export async function revertView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  await requireVisible(svc, request.actor, db.name, null);
  await requireActions(svc, request, ["revert-change"], db.name, null);
  requireMutable(db);
  const body = await revertBody(request);
  const historyUrl = `${svc.urls.database(db.name)}/-/history`;
  try {
    const entries = await svc.history.rawChanges(
      db,
      body.change_id !== null ? { ids: [body.change_id] } : { request_id: body.request_id! },
      MAX_CHANGES + 1,
    );
    if (entries.length > MAX_CHANGES) {
      // Undoing the oldest part of a request and not the rest would leave its rows half undone.
      throw new BadRequest(
        `Request ${body.request_id} changed more than ${MAX_CHANGES} rows: too many to undo at once`,
      );
    }
    if (!entries.length) {
      throw new NotFound(
        body.change_id !== null
          ? `Change ${body.change_id} is not in the history of ${db.name}`
          : `Request ${body.request_id} made no recorded changes in ${db.name}`,
      );
    }
    const reverts = new Map(entries.map((entry) => [rowKey(entry.table, entry.pks), entry.id]));
    if (db.row_writes) {
      await runRowWrites(svc, request, db, (writes) => writes.revert(entries), { reverts });
    } else await runWrite(svc, request, db, (conn) => revertChanges(conn, entries), { reverts });
    await svc.refresh_catalog();
    const message = entries.length === 1
      ? `Reverted change ${entries[0].id}`
      : `Reverted ${entries.length} changes of request ${body.request_id}`;
    if (body.form) {
      svc.add_message(request, message, svc.INFO);
      return Response.redirect(body.return_to ?? historyUrl);
    }
    return Response.json({
      ok: true,
      message,
      reverted: entries.map((entry) => entry.id),
      request_id: requestId(request),
    });
  } catch (error) {
    // A history page's button: the refusal is told on the page it came from.
    if (!body.form || !(error instanceof StatusError) || error.status >= 500) throw error;
    svc.add_message(request, error.message, svc.ERROR);
    return Response.redirect(body.return_to ?? historyUrl);
  }
}

async function revertBody(request: Request): Promise<RevertBody> {
  const type = request.headers["content-type"] ?? "";
  let data: Record<string, unknown>;
  let form = false;
  if (/^application\/json/i.test(type)) {
    data = await jsonObjectBody(request);
    if (!isObject(data)) throw new BadRequest("JSON must be an object");
    rejectUnknownKeys(data, ["change_id", "request_id"]);
  } else {
    data = await request.post_vars();
    form = true;
  }
  const changeText = data.change_id;
  const requestText = data.request_id;
  const hasChange = changeText !== undefined && changeText !== null && changeText !== "";
  const hasRequest = typeof requestText === "string" && requestText !== "";
  if (hasChange === hasRequest) {
    throw new BadRequest("Pass either change_id (a change's id) or request_id (a request's id)");
  }
  const changeId = hasChange ? Number(changeText) : null;
  if (changeId !== null && (!Number.isSafeInteger(changeId) || changeId < 1)) {
    throw new BadRequest("change_id must be a positive whole number");
  }
  const returnTo = typeof data.return_to === "string" ? data.return_to : null;
  return {
    change_id: changeId,
    request_id: hasRequest ? requestText as string : null,
    form,
    // Only a path on this site: a form's return address must not send anyone elsewhere.
    return_to: returnTo && /^\/(?![/\\])/.test(returnTo) ? returnTo : null,
  };
}
