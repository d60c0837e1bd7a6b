/**
 * `POST /<db>/<table>/-/insert` and `/-/upsert`: rows in, `201 {"ok": true}` (or `200` for
 * upsert) out, `"rows"` when asked for with `"return": true` or when a single `"row"` was sent.
 * Every row of a request is written in one transaction on the database's write queue: when one
 * row fails, none is written.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { BadRequest, Forbidden } from "../../http/errors.ts";
import { insertRows, upsertRows } from "../../db/row_writes.ts";
import { badRequest, isObject, type JsonObject, jsonObjectBody } from "./body.ts";
import { allowed, requireActions, requireMutable, requireVisible, targetTable } from "./target.ts";
import { flash, rowsResponse, rowsText, runRowWrites, runWrite } from "./run_write.ts";
import { InsertRowsEvent, UpsertRowsEvent } from "../../plugins/events.ts";
import { checkTypedValues } from "../typed_columns.ts";

const OPTIONS = ["return", "ignore", "replace", "alter"] as const;

/** The rows and options of an insert or upsert body. */
interface RowsRequest {
  rows: JsonObject[];
  returning: boolean;
  ignore: boolean;
  replace: boolean;
  alter: boolean;
}

/** `/-/insert`. */
export function insertView(svc: ViewHost, request: Request): Promise<Response> {
  return writeRows(svc, request, false);
}

/** `/-/upsert`. */
export function upsertView(svc: ViewHost, request: Request): Promise<Response> {
  return writeRows(svc, request, true);
}

async function writeRows(svc: ViewHost, request: Request, upsert: boolean): Promise<Response> {
  const { db, table, pks } = await targetTable(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  if (upsert) {
    await requireActions(
      svc,
      request,
      ["insert-row", "update-row"],
      db.name,
      table,
      "Permission denied: need both insert-row and update-row",
    );
  } else {
    await requireActions(svc, request, ["insert-row"], db.name, table);
  }
  requireMutable(db);

  const body = parseRowsRequest(
    await jsonObjectBody(request),
    Number(svc.setting("max_insert_rows")),
  );
  const keys = pks.length ? pks : ["rowid"];
  const columns = new Set([...await db.table_columns(table), ...keys].map(fold));
  const problems: string[] = [];
  body.rows.forEach((row, i) => {
    if (upsert) problems.push(...keyProblems(row, i, keys));
    const unknown = Object.keys(row).filter((column) => !columns.has(fold(column))).sort();
    if (unknown.length && !body.alter) {
      problems.push(`Row ${i} has invalid columns: ${unknown.join(", ")}`);
    }
  });
  if (problems.length) throw badRequest(problems);

  if (upsert && (body.ignore || body.replace)) {
    throw new BadRequest("Upsert does not support ignore or replace");
  }
  if (body.replace && !(await allowed(svc, request.actor, "update-row", db.name, table))) {
    throw new Forbidden('Permission denied: need update-row to use "replace"');
  }
  if (body.alter && !(await allowed(svc, request.actor, "alter-table", db.name, table))) {
    throw new Forbidden("Permission denied for alter-table");
  }

  await checkTypedValues(svc, db.name, table, body.rows);
  const target = { table, pks };
  const options = { alter: body.alter, returning: body.returning };
  const rows = db.row_writes
    ? await runRowWrites(
      svc,
      request,
      db,
      (writes) =>
        upsert ? writes.upsert(target, body.rows, options) : writes.insert(target, body.rows, {
          ...options,
          ignore: body.ignore,
          replace: body.replace,
        }),
    )
    : await runWrite(
      svc,
      request,
      db,
      (conn) =>
        upsert
          ? upsertRows(conn, target, body.rows, options)
          : insertRows(conn, target, body.rows, {
            ...options,
            ignore: body.ignore,
            replace: body.replace,
          }),
    );
  // Columns added by `alter` change what the catalog lists.
  if (body.alter) await svc.refresh_catalog();
  const num_rows = body.rows.length;
  const fields = { actor: request.actor, database: db.name, table, num_rows };
  await svc.track_event(
    upsert
      ? new UpsertRowsEvent(fields)
      : new InsertRowsEvent({ ...fields, ignore: body.ignore, replace: body.replace }),
  );
  flash(svc, request, `${rowsText(body.rows.length)} ${upsert ? "upserted" : "inserted"}`);
  const result: Record<string, unknown> = { ok: true };
  if (rows) result.rows = rows;
  return await rowsResponse(db, table, result, upsert ? 200 : 201);
}

/** Validates the body's shape (the reference's messages), stopping at the first problem. */
function parseRowsRequest(data: JsonObject, maxRows: number): RowsRequest {
  let rows: unknown;
  let returning = Boolean(data.return);
  if (!("row" in data) && !("rows" in data)) {
    throw new BadRequest('JSON must have one or other of "row" or "rows"');
  }
  if ("row" in data) {
    if ("rows" in data) throw new BadRequest('Cannot use "row" and "rows" at the same time');
    if (!isObject(data.row)) throw new BadRequest('"row" must be a dictionary');
    rows = [data.row];
    returning = true;
  } else {
    rows = data.rows;
  }
  if (!Array.isArray(rows)) throw new BadRequest('"rows" must be a list');
  if (!rows.every(isObject)) throw new BadRequest('"rows" must be a list of dictionaries');
  if (rows.length > maxRows) {
    throw new BadRequest(`Too many rows, maximum allowed is ${maxRows}`);
  }
  const invalid = Object.keys(data)
    .filter((key) =>
      key !== "row" && key !== "rows" && !(OPTIONS as readonly string[]).includes(key)
    )
    .sort();
  if (invalid.length) throw new BadRequest(`Invalid parameter: "${invalid.join('", "')}"`);
  if (data.ignore && data.replace) {
    throw new BadRequest('Cannot use "ignore" and "replace" at the same time');
  }
  return {
    rows: rows as JsonObject[],
    returning,
    ignore: Boolean(data.ignore),
    replace: Boolean(data.replace),
    alter: Boolean(data.alter),
  };
}

/** An upserted row must name every key column, none of them null. */
function keyProblems(row: JsonObject, index: number, keys: string[]): string[] {
  const problems: string[] = [];
  const missing = keys.filter((key) => !(key in row));
  if (missing.length) {
    problems.push(`Row ${index} is missing primary key column(s): "${missing.join('", "')}"`);
  }
  const nulls = keys.filter((key) => key in row && row[key] === null);
  if (nulls.length) {
    problems.push(`Row ${index} has null primary key column(s): "${nulls.join('", "')}"`);
  }
  return problems;
}

// SQLite compares column names without case.
function fold(name: string): string {
  return name.toLowerCase();
}
