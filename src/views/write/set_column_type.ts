/**
 * `POST /<db>/<table>/-/set-column-type`: gives a column a registered column type, or takes its
 * type away, for actors allowed `set-column-type` on the table. JSON as the reference's
 * (`{"column": "email", "column_type": {"type": "email", "config": {...}}}`, `"column_type":
 * null` to remove), or a form (`column=...&column_type=email`, an empty type removes) that comes
 * back to the table page with a message. Assignments are kept in the internal database and
 * override what configuration says about the same column.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { holdsNumbersOnly, typeAffinity } from "../../db/write_checks.ts";
import type { ColumnTypeClass } from "../../plugins/column_types.ts";
import type { StoredColumnType } from "../../db/column_type_store.ts";
import { isObject, jsonObjectBody, rejectUnknownKeys } from "./body.ts";
import { requireActions, requireVisible, targetTable } from "./target.ts";

interface Change {
  column: string;
  assignment: StoredColumnType;
  form: boolean;
}

/** The change asked for, from a JSON body or a form; 400 naming what is wrong. */
async function readChange(request: Request): Promise<Change> {
  const contentType = (request.headers["content-type"] ?? "").toLowerCase();
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    const vars = await request.post_vars();
    if (!vars.column) throw new BadRequest('"column" is required');
    let config: Record<string, unknown> | null = null;
    if (vars.config) {
      try {
        config = JSON.parse(vars.config);
      } catch {
        throw new BadRequest('"config" must be a JSON object');
      }
      if (!isObject(config)) throw new BadRequest('"config" must be a JSON object');
    }
    const type = vars.column_type ?? "";
    return { column: vars.column, assignment: type ? { type, config } : null, form: true };
  }
  const data = await jsonObjectBody(request);
  rejectUnknownKeys(data, ["column", "column_type"]);
  if (!("column" in data)) throw new BadRequest('"column" is required');
  if (typeof data.column !== "string") throw new BadRequest('"column" must be a string');
  if (!("column_type" in data)) throw new BadRequest('"column_type" is required');
  const spec = data.column_type;
  if (spec === null) return { column: data.column, assignment: null, form: false };
  if (!isObject(spec)) throw new BadRequest('"column_type" must be an object or null');
  const unknown = Object.keys(spec).filter((key) => key !== "type" && key !== "config");
  if (unknown.length) {
    throw new BadRequest(`Invalid column_type parameter: "${unknown.sort().join('", "')}"`);
  }
  if (!("type" in spec)) throw new BadRequest('"column_type.type" is required');
  if (typeof spec.type !== "string") throw new BadRequest('"column_type.type" must be a string');
  if (spec.config !== undefined && spec.config !== null && !isObject(spec.config)) {
    throw new BadRequest('"column_type.config" must be a dictionary');
  }
  const config = (spec.config ?? null) as Record<string, unknown> | null;
  return { column: data.column, assignment: { type: spec.type, config }, form: false };
}

/**
 * True when a column declared `declared` may take `type`: any type without `sqlite_types`, any
 * column without a declared type, and text types on columns that do not hold numbers only
 * (files often declare dates `DATETIME`, NUMERIC affinity, and keep text in them).
 */
export function applicable(type: ColumnTypeClass, declared: string): boolean {
  if (!type.sqlite_types || !declared) return true;
  const affinity = typeAffinity(declared);
  if (type.sqlite_types.includes(affinity)) return true;
  return type.sqlite_types.includes("TEXT") && affinity === "NUMERIC" &&
    !holdsNumbersOnly(declared);
}

/** `/-/set-column-type`: 200 `{"ok": true, database, table, column, column_type}`. */
export async function setColumnTypeView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table } = await targetTable(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["set-column-type"], db.name, table);
  const { column, assignment, form } = await readChange(request);
  const details = (await db.table_column_details(table)).map((row) => row.toObject());
  const detail = details.find((row) => row.name === column);
  if (!detail) throw new BadRequest(`Column not found: ${column}`);
  if (assignment) {
    const type = svc.columnTypes.find(assignment.type);
    if (!type) throw new BadRequest(`Unknown column type: ${assignment.type}`);
    const declared = String(detail.type ?? "");
    if (!applicable(type, declared)) {
      throw new BadRequest(
        `Column type "${type.type_name}" is only applicable to SQLite types ` +
          `${type.sqlite_types?.join(", ")} but ${db.name}.${table}.${column} is ${declared}`,
      );
    }
  }
  await svc.column_type_store.set(db.name, table, column, assignment);
  if (form) {
    const message = assignment
      ? `Column ${column} now has type ${assignment.type}`
      : `Column ${column} no longer has a type`;
    svc.add_message(request, message, svc.INFO);
    return Response.redirect(String(svc.urls.table(db.name, table)));
  }
  return Response.json({
    ok: true,
    database: db.name,
    table,
    column,
    column_type: assignment,
  });
}
