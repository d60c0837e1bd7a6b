/**
 * `GET|POST /<db>/-/edit-metadata` and `/<db>/<table>/-/edit-metadata`: edit a database's or a
 * table's title, description, licence, source and "about" link (each with its URL), and a
 * table's column descriptions and units, while serving. Needs the `edit-metadata` action
 * (denied unless granted; root holds it). A form POST (CSRF-checked like every form) redirects
 * back to the page edited; a JSON POST takes the metadata's own shape —
 * `{"title": "…", "columns": {"col": "…"}, "units": {"col": "m"}}`, null or `""` to drop an edit —
 * and answers `{"ok": true, "metadata": {…}}`. Edits are kept in the internal database
 * (`db/metadata_edits.ts`) and layered over the `-m`/`-c` metadata.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, Forbidden } from "../../http/errors.ts";
import { renderPage } from "../../render/render_page.ts";
import { EditMetadataEvent } from "../../plugins/events.ts";
import { EDITABLE_KEYS, type MetadataEdit } from "../../db/metadata_edits.ts";
import { isObject, jsonBody } from "../write/body.ts";
import { allowed } from "../write/target.ts";

/** Labels of the editable keys, in the form's order. */
const LABELS: Record<string, string> = {
  title: "Title",
  description: "Description",
  license: "Licence",
  license_url: "Licence URL",
  source: "Source",
  source_url: "Source URL",
  about: "About",
  about_url: "About URL",
};

/** Where the edit page of `database` (or its `table`) lives. */
export function editMetadataUrl(svc: ViewHost, database: string, table: string | null): string {
  const base = table === null ? svc.urls.database(database) : svc.urls.table(database, table);
  return `${base}/-/edit-metadata`;
}

/** `GET|POST /<db>/-/edit-metadata` and `/<db>/<table>/-/edit-metadata`. */
export async function editMetadataView(svc: ViewHost, request: Request): Promise<Response> {
  const json = request.method === "POST" &&
    (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json");
  if (json) request.url_vars = { ...request.url_vars, format: "json" };
  const { database, table, columns } = await target(svc, request);
  if (!(await allowed(svc, request.actor, "edit-metadata", database, table))) {
    throw new Forbidden("You do not have permission to edit this metadata");
  }
  const current = currentValues(svc, database, table);
  if (request.method !== "POST") {
    return await editPage(svc, request, database, table, columns, current);
  }
  const changes = json
    ? changesFromJson(await jsonBody(request), table, columns)
    : changesFromForm(await request.post_vars(), table, columns);
  // Only what differs is kept: a field left as it was keeps following the metadata files.
  const edits = changes.filter((edit) => (edit.value ?? "") !== valueOf(current, edit));
  if (edits.length) {
    await svc.metadata_edits.apply(database, table, edits);
    await svc.track_event(
      new EditMetadataEvent({
        actor: request.actor,
        database,
        table,
        fields: edits.map(fieldName),
      }),
    );
  }
  if (json) {
    return Response.json({ ok: true, metadata: currentValues(svc, database, table) });
  }
  svc.add_message(request, edits.length ? "Metadata saved" : "Nothing changed", svc.INFO);
  const back = table === null ? svc.urls.database(database) : svc.urls.table(database, table);
  return Response.redirect(String(back));
}

/** The database, table (null on the database page) and its columns; 403/404 as other pages. */
async function target(
  svc: ViewHost,
  request: Request,
): Promise<{ database: string; table: string | null; columns: string[] }> {
  if (request.url_vars.table === undefined) {
    const db = svc.resolve_database(request);
    await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
    return { database: db.name, table: null, columns: [] };
  }
  const { db, table } = await svc.resolve_table(request);
  await svc.ensure_permissions(request.actor, [
    ["view-table", [db.name, table]],
    ["view-database", db.name],
    "view-instance",
  ]);
  return { database: db.name, table, columns: await db.table_columns(table) };
}

interface Values {
  fields: Record<string, string>;
  columns: Record<string, string>;
  units: Record<string, string>;
}

/** What the metadata says now (files and edits merged), as text. */
function currentValues(svc: ViewHost, database: string, table: string | null): Values {
  const metadata = svc.metadata();
  const level = table === null ? metadata.database(database) : metadata.table(database, table);
  const texts = (value: unknown): Record<string, string> =>
    Object.fromEntries(
      Object.entries(isObject(value) ? value : {}).filter(([, v]) => typeof v === "string"),
    ) as Record<string, string>;
  const fields: Record<string, string> = {};
  for (const key of EDITABLE_KEYS) {
    if (typeof level[key] === "string") fields[key] = level[key] as string;
  }
  return { fields, columns: texts(level.columns), units: texts(level.units) };
}

function valueOf(current: Values, edit: MetadataEdit): string {
  if (edit.column === null) return current.fields[edit.key] ?? "";
  const map = edit.key === "unit" ? current.units : current.columns;
  return map[edit.column] ?? "";
}

function fieldName(edit: MetadataEdit): string {
  if (edit.column === null) return edit.key;
  return `${edit.key === "unit" ? "units" : "columns"}.${edit.column}`;
}

/** Form fields: one per key, `description:<column>` and `unit:<column>` per column. */
function changesFromForm(
  vars: Record<string, string>,
  table: string | null,
  columns: string[],
): MetadataEdit[] {
  const edits: MetadataEdit[] = [];
  for (const key of EDITABLE_KEYS) {
    if (key in vars) edits.push({ column: null, key, value: vars[key].trim() });
  }
  if (table === null) return edits;
  for (const column of columns) {
    for (const key of ["description", "unit"]) {
      const name = `${key}:${column}`;
      if (name in vars) edits.push({ column, key, value: vars[name].trim() });
    }
  }
  return edits;
}

/** A JSON body in the metadata's shape; unknown keys and columns are a 400. */
function changesFromJson(body: unknown, table: string | null, columns: string[]): MetadataEdit[] {
  if (!isObject(body)) throw new BadRequest("JSON must be a dictionary");
  const text = (value: unknown, name: string): string | null => {
    if (value === null || typeof value === "string") return value;
    throw new BadRequest(`${name} must be a string or null`);
  };
  const edits: MetadataEdit[] = [];
  for (const [key, value] of Object.entries(body)) {
    if ((EDITABLE_KEYS as readonly string[]).includes(key)) {
      edits.push({ column: null, key, value: text(value, key) });
    } else if (table !== null && (key === "columns" || key === "units")) {
      if (!isObject(value)) throw new BadRequest(`${key} must be a dictionary`);
      for (const [column, note] of Object.entries(value)) {
        if (!columns.includes(column)) {
          throw new BadRequest(`Table ${table} has no column ${column}`);
        }
        edits.push({
          column,
          key: key === "units" ? "unit" : "description",
          value: text(note, `${key}.${column}`),
        });
      }
    } else {
      const allowedKeys = [...EDITABLE_KEYS, ...table === null ? [] : ["columns", "units"]];
      throw new BadRequest(`Invalid key: ${key} (allowed: ${allowedKeys.join(", ")})`);
    }
  }
  return edits;
}

async function editPage(
  svc: ViewHost,
  request: Request,
  database: string,
  table: string | null,
  columns: string[],
  current: Values,
): Promise<Response> {
  return await renderPage(svc, request, "edit_metadata.html", {
    database,
    table,
    action_url: editMetadataUrl(svc, database, table),
    back_url: String(
      table === null ? svc.urls.database(database) : svc.urls.table(database, table),
    ),
    fields: EDITABLE_KEYS.map((key) => ({
      name: key,
      label: LABELS[key],
      value: current.fields[key] ?? "",
      multiline: key === "description",
    })),
    columns: columns.map((name) => ({
      name,
      description: current.columns[name] ?? "",
      unit: current.units[name] ?? "",
    })),
  }, { view_name: "edit_metadata", database, table });
}
