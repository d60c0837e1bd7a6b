/**
 * Stored queries over HTTP, with the reference's (1.0a37) routes and JSON shapes:
 *
 * - `GET /<db>/-/queries(.json)` and `/-/queries(.json)`: the queries the actor may see
 *   (`?q=` searches name, title, description and SQL);
 * - `GET|POST /<db>/-/queries/store`: the save form, and saving (a form, or JSON
 *   `{"query": {...}}` → 201 `{"ok": true, "query": {...}}`);
 * - `GET /<db>/<query>/-/definition`: `{"ok": true, "query": {...}}`;
 * - `POST /<db>/<query>/-/update`: JSON `{"update": {...}, "return": true}`;
 * - `GET|POST /<db>/<query>/-/edit` and `/-/delete`: the edit and delete forms (a JSON POST to
 *   `/-/delete` answers `{"ok": true}`).
 *
 * Stored queries run at `/<db>/<name>` like canned queries (table/table_or_query.ts).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import type { StoredQuery, StoredQueryFields } from "../../db/stored_queries.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { renderPage } from "../../render/render_page.ts";
import { DeleteQueryEvent, StoreQueryEvent, UpdateQueryEvent } from "../../plugins/events.ts";
import { isObject, jsonBody } from "../write/body.ts";
import { type BrowserPageOf, notPosted, pageAbove } from "../write/post_only.ts";
import { actorId, ensureMayStore, storedQueryFromUrl } from "./stored_access.ts";
import {
  checkNewName,
  CREATE_KEYS,
  newQueryFields,
  rejectUnknown,
  storedFields,
  UPDATE_KEYS,
} from "./stored_input.ts";

/** A stored query as JSON (the reference's keys plus `shared_with`; `private` in lists). */
export function storedQueryJson(query: StoredQuery, isPrivate?: boolean): Record<string, unknown> {
  const { created_at: _c, updated_at: _u, ...fields } = query;
  return isPrivate === undefined ? fields : { ...fields, private: isPrivate };
}

/** True when the body is JSON (the API), false for a form. */
function isJsonRequest(request: Request): boolean {
  return (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json");
}

/** `GET|POST /<db>/-/queries/store`. */
export async function storeQueryView(svc: ViewHost, request: Request): Promise<Response> {
  const db = svc.resolve_database(request);
  await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
  const json = request.method === "POST" && isJsonRequest(request);
  if (json) request.url_vars = { ...request.url_vars, format: "json" };
  await ensureMayStore(svc, request.actor, db);
  if (request.method !== "POST") {
    const fields = { ...newQueryFields(), sql: request.args.get("sql") ?? "" };
    return await queryFormPage(svc, request, db, null, fields, "");
  }
  if (json) {
    const body = await jsonBody(request);
    if (!isObject(body) || !isObject(body.query)) {
      throw new BadRequest("JSON must contain a query dictionary");
    }
    rejectUnknown(body.query, CREATE_KEYS);
    const query = await storeQuery(svc, request, db, body.query);
    return Response.json({ ok: true, query: storedQueryJson(query) }, { status: 201 });
  }
  const form = formData(await request.post_vars());
  try {
    const query = await storeQuery(svc, request, db, form);
    // Without --internal the internal database lives in memory: say so while it can be fixed.
    if (svc.get_internal_database().is_memory) {
      svc.add_message(
        request,
        "Query saved, in memory only: it is lost when Vitrine stops. To keep stored queries, " +
          "start Vitrine with --internal FILE (a file it creates).",
        svc.WARNING,
      );
    } else svc.add_message(request, "Query saved", svc.INFO);
    return Response.redirect(String(svc.urls.query(db.name, query.name)));
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    svc.add_message(request, error.message, svc.ERROR);
    const fields = { ...newQueryFields(), ...formFields(form) };
    return await queryFormPage(svc, request, db, null, fields, String(form.name ?? ""), 400);
  }
}

async function storeQuery(
  svc: ViewHost,
  request: Request,
  db: Database,
  data: Record<string, unknown>,
): Promise<StoredQuery> {
  if (!("sql" in data)) throw new BadRequest("sql is required");
  const name = await checkNewName(svc, request, db, data.name);
  const fields = await storedFields(svc, request, db, data, newQueryFields());
  if (!(await svc.stored_queries.add(db.name, name, actorId(request.actor), fields))) {
    throw new BadRequest("Query already exists");
  }
  await svc.track_event(
    new StoreQueryEvent({
      actor: request.actor,
      database: db.name,
      query_name: name,
      is_private: fields.is_private,
    }),
  );
  return (await svc.stored_queries.get(db.name, name))!;
}

/** `GET /<db>/<query>/-/definition`. */
export async function queryDefinitionView(svc: ViewHost, request: Request): Promise<Response> {
  request.url_vars = { ...request.url_vars, format: "json" };
  const { query } = await storedQueryFromUrl(svc, request, "view-query");
  return Response.json({ ok: true, query: storedQueryJson(query) });
}

/** `POST /<db>/<query>/-/update` (JSON); a browser opening it is shown the edit page's link. */
export async function updateQueryView(svc: ViewHost, request: Request): Promise<Response> {
  if (request.method !== "POST") throw notPosted(svc, request, editPage, ["POST"]);
  request.url_vars = { ...request.url_vars, format: "json" };
  const { db, query } = await storedQueryFromUrl(svc, request, "update-query");
  const body = await jsonBody(request);
  if (!isObject(body)) throw new BadRequest("JSON must be a dictionary");
  rejectUnknown(body, ["update", "return"]);
  if (!isObject(body.update)) throw new BadRequest("JSON must contain an update dictionary");
  rejectUnknown(body.update, UPDATE_KEYS);
  const updated = await updateQuery(svc, request, db, query, body.update);
  return Response.json(body.return ? { ok: true, query: storedQueryJson(updated) } : { ok: true });
}

async function updateQuery(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: StoredQuery,
  changes: Record<string, unknown>,
): Promise<StoredQuery> {
  const fields = await storedFields(svc, request, db, changes, query);
  const updated = await svc.stored_queries.update(db.name, query.name, fields);
  if (!updated) throw new BadRequest(`Query not found: ${query.name}`);
  await svc.track_event(
    new UpdateQueryEvent({
      actor: request.actor,
      database: db.name,
      query_name: query.name,
      fields: Object.keys(changes).sort(),
    }),
  );
  return updated;
}

/** `GET|POST /<db>/<query>/-/edit`. */
export async function editQueryView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, query } = await storedQueryFromUrl(svc, request, "update-query");
  if (request.method !== "POST") return await queryFormPage(svc, request, db, query, query, "");
  const form = formData(await request.post_vars());
  try {
    await updateQuery(svc, request, db, query, form);
    svc.add_message(request, "Query updated", svc.INFO);
    return Response.redirect(String(svc.urls.query(db.name, query.name)));
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    svc.add_message(request, error.message, svc.ERROR);
    return await queryFormPage(svc, request, db, query, { ...query, ...formFields(form) }, "", 400);
  }
}

/** Where a browser edits a stored query. */
const editPage: BrowserPageOf = (request) => ({
  does: "updates a stored query",
  where: "the page that edits it",
  path: `${pageAbove(request)}/-/edit`,
});

/** `GET|POST /<db>/<query>/-/delete`. */
export async function deleteQueryView(svc: ViewHost, request: Request): Promise<Response> {
  const json = request.method === "POST" && isJsonRequest(request);
  if (json) request.url_vars = { ...request.url_vars, format: "json" };
  const { db, query } = await storedQueryFromUrl(svc, request, "delete-query");
  if (request.method !== "POST") {
    return await renderPage(svc, request, "query_delete.html", {
      database: db.name,
      query: storedQueryJson(query),
      query_url: String(svc.urls.query(db.name, query.name)),
    }, { view_name: "query_delete", database: db.name });
  }
  await svc.stored_queries.remove(db.name, query.name);
  await svc.track_event(
    new DeleteQueryEvent({ actor: request.actor, database: db.name, query_name: query.name }),
  );
  if (json) return Response.json({ ok: true });
  svc.add_message(request, `Query “${query.title || query.name}” deleted`, svc.INFO);
  return Response.redirect(String(svc.urls.database(db.name)));
}

/** The form's fields as the JSON API names them (`sharing` picks `is_private`). */
function formData(vars: Record<string, string>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key of ["name", "sql", "title", "description"]) {
    if (key in vars) data[key] = vars[key];
  }
  const sharing = vars.sharing ?? "private";
  data.is_private = sharing !== "instance";
  data.shared_with = sharing === "actors" ? vars.shared_with ?? "" : [];
  return data;
}

/** Form values to show again after a mistake. */
function formFields(form: Record<string, unknown>): Partial<StoredQueryFields> {
  const text = (value: unknown) => typeof value === "string" ? value : null;
  const shared = typeof form.shared_with === "string"
    ? form.shared_with.split(/[\s,]+/).filter(Boolean)
    : [];
  return {
    sql: text(form.sql) ?? "",
    title: text(form.title),
    description: text(form.description),
    is_private: Boolean(form.is_private),
    shared_with: shared,
  };
}

/** The store form (no `query`) or the edit form. */
async function queryFormPage(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: StoredQuery | null,
  fields: StoredQueryFields,
  name: string,
  status = 200,
): Promise<Response> {
  const sharing = !fields.is_private
    ? "instance"
    : fields.shared_with.length
    ? "actors"
    : "private";
  return await renderPage(svc, request, "query_form.html", {
    database: db.name,
    editing: query !== null,
    name: query?.name ?? name,
    fields: { ...fields, shared_with: fields.shared_with.join(", ") },
    sharing,
    action: query
      ? `${svc.urls.query(db.name, query.name)}/-/edit`
      : `${svc.urls.database(db.name)}/-/queries/store`,
    query_url: query ? String(svc.urls.query(db.name, query.name)) : null,
  }, { view_name: query ? "query_edit" : "query_create", database: db.name, status });
}
