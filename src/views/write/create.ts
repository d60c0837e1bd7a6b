/**
 * `POST /<db>/-/create`: a table from `columns` (`[{name, type}]`, types `text`, `integer`,
 * `float`, `blob`) or from example `row`/`rows` (types inferred, rows inserted), with `pk` or
 * `pks`. Called again with rows for a table that exists, it inserts them (`ignore`, `replace`,
 * `alter` as for `/-/insert`). 201 with the table's URLs and schema.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { type ColumnSpec, createTable } from "../../db/table_writes.ts";
import type { ColumnType } from "../../db/write_values.ts";
import { isObject, type JsonObject, jsonObjectBody, rejectUnknownKeys } from "./body.ts";
import { requireActions, requireMutable, requireVisible, targetDatabase } from "./target.ts";
import { flash, rowsText, runWrite } from "./run_write.ts";
import type { Database } from "../../db/database.ts";
import { CreateTableEvent, InsertRowsEvent } from "../../plugins/events.ts";

const KEYS = ["table", "rows", "row", "columns", "pk", "pks", "ignore", "replace", "alter"];
const TYPES: Record<string, ColumnType> = {
  text: "TEXT",
  integer: "INTEGER",
  float: "FLOAT",
  blob: "BLOB",
};
// Any name without a newline that SQLite does not reserve for itself.
const TABLE_NAME = /^(?!sqlite_)[^\n]+$/i;
const COLUMN_NAME = /^[^\n]+$/;

/** `/<db>/-/create`. */
export async function createTableView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  await requireVisible(svc, request.actor, db.name, null);
  await requireActions(svc, request, ["create-table"], db.name, null);
  requireMutable(db);

  const data = await jsonObjectBody(request, "JSON must be an object");
  rejectUnknownKeys(data, KEYS);
  const spec = parseCreate(data);
  const { table } = spec;
  const exists = await db.table_exists(table);
  if (exists) await requireVisible(svc, request.actor, db.name, table);
  if (spec.rows) {
    await requireActions(svc, request, ["insert-row"], db.name, table);
  }
  if (spec.replace) await requireActions(svc, request, ["update-row"], db.name, table);
  if (exists && spec.rows && spec.alter) {
    await requireActions(svc, request, ["alter-table"], db.name, table);
  }

  let pks = spec.pks;
  if (exists) {
    if (spec.columns) throw new BadRequest(`table [${table}] already exists`);
    const actual = await db.primary_keys(table);
    if (pks.length && !sameColumns(pks, actual)) {
      throw new BadRequest("pk cannot be changed for existing table");
    }
    pks = actual;
  }

  const result = await runWrite(svc, request, db, (conn) =>
    createTable(conn, {
      table,
      pks,
      columns: spec.columns ?? undefined,
      rows: spec.rows ?? undefined,
      ignore: spec.ignore,
      replace: spec.replace,
      alter: spec.alter,
    }));
  await svc.refresh_catalog();
  await trackCreate(svc, request, db, spec, result);
  flash(
    svc,
    request,
    result.created
      ? `Table ${table} created`
      : `${rowsText(spec.rows?.length ?? 0)} inserted into ${table}`,
  );
  const details: Record<string, unknown> = {
    ok: true,
    database: db.name,
    table,
    table_url: svc.absolute_url(request, String(svc.urls.table(db.name, table))),
    table_api_url: svc.absolute_url(
      request,
      String(svc.urls.table(db.name, table, { format: "json" })),
    ),
    schema: result.schema,
  };
  if (spec.rows) details.row_count = spec.rows.length;
  return Response.json(details, { status: 201 });
}

/** `create-table` for a new table; `insert-rows` when rows went into one that existed. */
async function trackCreate(
  svc: ViewHost,
  request: Request,
  db: Database,
  spec: CreateRequest,
  result: { created: boolean; schema: string },
): Promise<void> {
  const { actor } = request;
  const { table } = spec;
  const num_rows = spec.rows?.length ?? 0;
  if (result.created) {
    await svc.track_event(
      new CreateTableEvent({ actor, database: db.name, table, schema: result.schema }),
    );
  } else if (num_rows) {
    await svc.track_event(
      new InsertRowsEvent({
        actor,
        database: db.name,
        table,
        num_rows,
        ignore: spec.ignore,
        replace: spec.replace,
      }),
    );
  }
}

interface CreateRequest {
  table: string;
  columns: ColumnSpec[] | null;
  rows: JsonObject[] | null;
  pks: string[];
  ignore: boolean;
  replace: boolean;
  alter: boolean;
}

/** The body's fields, checked in the reference's order and with its messages. */
function parseCreate(data: JsonObject): CreateRequest {
  const fail = (message: string): never => {
    throw new BadRequest(message);
  };
  if (data.ignore && data.replace) fail("ignore and replace are mutually exclusive");
  if (("ignore" in data || "replace" in data)) {
    if (!data.row && !data.rows) fail("ignore and replace require row or rows");
    if (!data.pk && !data.pks) fail("ignore and replace require pk or pks");
  }
  const table = data.table;
  if (!table) fail("Table is required");
  if (typeof table !== "string" || !TABLE_NAME.test(table)) fail("Invalid table name");
  if (!data.columns && !data.rows && !data.row) fail("columns, rows or row is required");
  if (data.rows && data.row) fail("Cannot specify both rows and row");

  let columns: ColumnSpec[] | null = null;
  if (data.columns) {
    if (data.rows || data.row) fail("Cannot specify columns with rows or row");
    columns = parseColumns(data.columns);
  }
  let rows: JsonObject[] | null = null;
  if (data.row || data.rows) {
    const given = data.row ? [data.row] : data.rows;
    if (!Array.isArray(given)) fail("rows must be a list");
    if (!(given as unknown[]).every(isObject)) fail("rows must be a list of objects");
    rows = given as JsonObject[];
    for (const row of rows) {
      for (const name of Object.keys(row)) {
        if (!COLUMN_NAME.test(name)) fail(`Invalid column name: ${JSON.stringify(name)}`);
      }
    }
  }
  return {
    table: table as string,
    columns,
    rows,
    pks: parsePks(data),
    ignore: Boolean(data.ignore),
    replace: Boolean(data.replace),
    alter: Boolean(data.alter),
  };
}

function parseColumns(value: unknown): ColumnSpec[] {
  if (!Array.isArray(value)) throw new BadRequest("columns must be a list");
  const columns: ColumnSpec[] = [];
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const column of value) {
    if (!isObject(column)) throw new BadRequest("columns must be a list of objects");
    const name = column.name;
    if (!name || typeof name !== "string") throw new BadRequest("Column name is required");
    if (!COLUMN_NAME.test(name)) {
      throw new BadRequest(`Invalid column name: ${JSON.stringify(name)}`);
    }
    const typeName = column.type ?? "text";
    const type = typeof typeName === "string" ? TYPES[typeName] : undefined;
    if (!type) throw new BadRequest(`Unsupported column type: ${String(typeName)}`);
    if (seen.has(name.toLowerCase())) duplicates.add(name);
    seen.add(name.toLowerCase());
    columns.push({ name, type });
  }
  if (duplicates.size) {
    throw new BadRequest(`Duplicate column name: ${[...duplicates].join(", ")}`);
  }
  return columns;
}

function parsePks(data: JsonObject): string[] {
  const { pk, pks } = data;
  if (pk && pks) throw new BadRequest("Cannot specify both pk and pks");
  if (pk) {
    if (typeof pk !== "string") throw new BadRequest("pk must be a string");
    return [pk];
  }
  if (pks) {
    if (!Array.isArray(pks)) throw new BadRequest("pks must be a list");
    if (!pks.every((item) => typeof item === "string")) {
      throw new BadRequest("pks must be a list of strings");
    }
    return pks as string[];
  }
  return [];
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  const fold = (list: readonly string[]) => [...list].map((x) => x.toLowerCase()).sort().join("\n");
  return fold(a) === fold(b);
}
