/**
 * `POST /<db>/-/create`: a table from `columns` (`[{name, type}]`, types `text`, `integer`,
 * `float`, `blob` as the reference has them, and more SQLite types) or from example `row`/`rows`
 * (types inferred, rows inserted), with `pk` or `pks`. Called again with rows for a table that
 * exists, it inserts them (`ignore`, `replace`, `alter` as for `/-/insert`). 201 with the table's
 * URLs and schema.
 *
 * Beyond the reference: a column may say `not_null`, `default`/`default_expr` and `column_type`
 * (a registered column type: `email`, `url`...; it picks the storage type when `type` is left
 * out); `foreign_keys` lists `{column, fk_table, fk_column}`; `csv` is pasted CSV/TSV text with a
 * header whose columns are typed as the importer types them (and, when `columns` is given too,
 * fill its first columns in order), its rows inserted in the same transaction; and `dry_run`
 * does it all and rolls it back, answering 200 with the schema, the statement and the columns.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import {
  type ColumnSpec,
  createTable,
  type CreateTableSpec,
  type ForeignKeyRequest,
} from "../../db/table_writes.ts";
import { defaultSqlOf } from "../../db/alter_plan.ts";
import { readPasted } from "../../db/import/pasted.ts";
import { isObject, type JsonObject, jsonObjectBody, rejectUnknownKeys } from "./body.ts";
import {
  requireActions,
  requireMutable,
  requireUnprotected,
  requireVisible,
  targetDatabase,
} from "./target.ts";
import { afterCommit, flash, rowsText, runTableWrites, runWrite } from "./run_write.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { CreateTableEvent, InsertRowsEvent } from "../../plugins/events.ts";
import type { ColumnTypeRegistry } from "../../plugins/column_types.ts";
import { checkTypedRows } from "../typed_columns.ts";
import { applicable } from "./set_column_type.ts";

const KEYS = [
  "table",
  "rows",
  "row",
  "columns",
  "pk",
  "pks",
  "ignore",
  "replace",
  "alter",
  "foreign_keys",
  "csv",
  "dry_run",
];
const COLUMN_KEYS = ["name", "type", "not_null", "default", "default_expr", "column_type"];
const FOREIGN_KEY_KEYS = ["column", "fk_table", "fk_column"];

/**
 * Column types by the names the API takes: the reference's four, SQLite's other affinities and
 * the declared types people write (each keeps its name, so SQLite gives it its usual affinity).
 */
export const CREATE_TYPES: Record<string, string> = {
  text: "TEXT",
  integer: "INTEGER",
  float: "FLOAT",
  blob: "BLOB",
  real: "REAL",
  numeric: "NUMERIC",
  boolean: "BOOLEAN",
  date: "DATE",
  datetime: "DATETIME",
  varchar: "VARCHAR",
  decimal: "DECIMAL",
  double: "DOUBLE",
  bigint: "BIGINT",
};
/** Any name without a newline that SQLite does not reserve for itself. */
export const TABLE_NAME = /^(?!sqlite_)[^\n]+$/i;
const COLUMN_NAME = /^[^\n]+$/;

/** `/<db>/-/create`. */
export async function createTableView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  await requireVisible(svc, request.actor, db.name, null);
  await requireActions(svc, request, ["create-table"], db.name, null);
  requireMutable(db);

  const data = await jsonObjectBody(request, "JSON must be an object");
  rejectUnknownKeys(data, KEYS);
  const spec = parseCreate(data, svc.columnTypes);
  if (spec.csv !== null) await readCsv(svc, spec, spec.csv);
  const { table } = spec;
  requireUnprotected(db, table);
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
  if (!exists && spec.rows && spec.typed.size) {
    const types = svc.columnTypes.forTable(
      { column_types: Object.fromEntries([...spec.typed].map(([c, type]) => [c, { type }])) },
      `table "${table}" of database "${db.name}"`,
    );
    await checkTypedRows(types, db.name, table, spec.rows);
  }

  const apply = !spec.dryRun;
  const create: CreateTableSpec = {
    table,
    pks,
    columns: spec.columns ?? undefined,
    foreignKeys: spec.foreignKeys,
    rows: spec.rows ?? undefined,
    ignore: spec.ignore,
    replace: spec.replace,
    alter: spec.alter,
  };
  const result = db.table_writes
    ? await runTableWrites(
      svc,
      request,
      db,
      (writes) => writes.create(create, { dryRun: !apply }),
      // Its rows are recorded, as on SQLite.
      { history: true },
    )
    : await runWrite(svc, request, db, (conn) => createTable(conn, create, { apply }), {
      transaction: apply,
    });
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
  if (!apply) {
    return Response.json({
      ...details,
      dry_run: true,
      statements: result.statement ? [result.statement] : [],
      columns: spec.columns?.map((column) => ({
        name: column.name,
        type: column.type,
        column_type: spec.typed.get(column.name) ?? null,
      })) ?? null,
    });
  }
  const warning = result.created
    ? await afterCommit("its column types could not be kept", async () => {
      for (const [column, type] of spec.typed) {
        await svc.column_type_store.set(db.name, table, column, { type, config: null });
      }
    })
    : null;
  if (warning !== null) details.warnings = [warning];
  await svc.refresh_catalog();
  await trackCreate(svc, request, db, spec, result);
  flash(
    svc,
    request,
    result.created
      ? `Table ${table} created`
      : `${rowsText(spec.rows?.length ?? 0)} inserted into ${table}`,
  );
  return Response.json(details, { status: 201 });
}

/**
 * Pasted rows (`csv`): parsed and typed by the importer. Without `columns` they make the columns
 * (a column of ISO dates with the `date` or `datetime` column type); with them, the pasted
 * columns fill the first ones in order (renamed and retyped as given).
 */
async function readCsv(svc: ViewHost, spec: CreateRequest, text: string): Promise<void> {
  const pasted = await readPasted(text, Number(svc.setting("max_insert_rows")));
  if (!spec.columns) {
    spec.columns = pasted.columns.map(({ name, type }) => ({ name, type }));
    spec.rows = pasted.rows;
    // ISO dates stay text, with the column type an import gives them (when it is registered).
    for (const { name, column_type } of pasted.columns) {
      if (column_type && svc.columnTypes.find(column_type)) spec.typed.set(name, column_type);
    }
    return;
  }
  const names = spec.columns.map((column) => column.name);
  if (names.length < pasted.columns.length) {
    throw new BadRequest(
      `The pasted rows have ${pasted.columns.length} columns but only ${names.length} are given`,
    );
  }
  spec.rows = pasted.rows.map((row) =>
    Object.fromEntries(pasted.columns.map((column, i) => [names[i], row[column.name]]))
  );
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
  foreignKeys: ForeignKeyRequest[];
  /** Column → registered column type, for columns created with one. */
  typed: Map<string, string>;
  csv: string | null;
  ignore: boolean;
  replace: boolean;
  alter: boolean;
  dryRun: boolean;
}

/** The body's fields, checked in the reference's order and with its messages. */
function parseCreate(data: JsonObject, registry: ColumnTypeRegistry): CreateRequest {
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
  if (!data.columns && !data.rows && !data.row && data.csv === undefined) {
    fail("columns, rows or row is required");
  }
  if (data.rows && data.row) fail("Cannot specify both rows and row");
  if (data.csv !== undefined) {
    if (typeof data.csv !== "string") fail("csv must be text: a header row and rows");
    if (data.rows || data.row) fail("Cannot specify csv with rows or row");
  }

  let columns: ColumnSpec[] | null = null;
  const typed = new Map<string, string>();
  if (data.columns) {
    if (data.rows || data.row) fail("Cannot specify columns with rows or row");
    columns = parseColumns(data.columns, registry, typed);
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
  const pks = parsePks(data);
  return {
    table: table as string,
    columns,
    rows,
    pks,
    foreignKeys: parseForeignKeys(data.foreign_keys, columns, pks),
    typed,
    csv: typeof data.csv === "string" ? data.csv : null,
    ignore: Boolean(data.ignore),
    replace: Boolean(data.replace),
    alter: Boolean(data.alter),
    dryRun: data.dry_run === true,
  };
}

function parseColumns(
  value: unknown,
  registry: ColumnTypeRegistry,
  typed: Map<string, string>,
): ColumnSpec[] {
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
    const fail = (message: string): never => {
      throw new BadRequest(`Column ${name}: ${message}`);
    };
    const unknown = Object.keys(column).filter((key) => !COLUMN_KEYS.includes(key));
    if (unknown.length) fail(`unknown keys ${unknown.join(", ")}`);
    let type = columnType(column.type);
    if (column.column_type !== undefined && column.column_type !== null) {
      const typeName = column.column_type;
      const registered = typeof typeName === "string" ? registry.find(typeName) : undefined;
      if (!registered) return fail(`unknown column type ${JSON.stringify(typeName)}`);
      type ??= registered.sqlite_types?.[0] ?? "TEXT";
      if (!applicable(registered, type)) {
        fail(
          `column type ${registered.type_name} needs a ${
            registered.sqlite_types?.join(" or ")
          } column, not ${type}`,
        );
      }
      typed.set(name, registered.type_name);
    }
    if (column.not_null !== undefined && typeof column.not_null !== "boolean") {
      fail("not_null must be true or false");
    }
    if (seen.has(name.toLowerCase())) duplicates.add(name);
    seen.add(name.toLowerCase());
    columns.push({
      name,
      type: type ?? "TEXT",
      notNull: column.not_null === true,
      defaultSql: defaultSqlOf(column, fail),
    });
  }
  if (duplicates.size) {
    throw new BadRequest(`Duplicate column name: ${[...duplicates].join(", ")}`);
  }
  return columns;
}

/** The declared type for a column's `type`, or null when it gives none. */
function columnType(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const type = typeof value === "string" ? CREATE_TYPES[value.toLowerCase()] : undefined;
  if (!type) throw new BadRequest(`Unsupported column type: ${String(value)}`);
  return type;
}

function parseForeignKeys(
  value: unknown,
  columns: ColumnSpec[] | null,
  pks: string[],
): ForeignKeyRequest[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new BadRequest("foreign_keys must be a list");
  // An automatic id (a single pk not among the columns) is a column too.
  const names = new Set(
    [...(columns ?? []).map((c) => c.name), ...pks].map((n) => n.toLowerCase()),
  );
  return value.map((item, i) => {
    const fail = (message: string): never => {
      throw new BadRequest(`Foreign key ${i + 1}: ${message}`);
    };
    if (!isObject(item)) return fail("must be an object with column and fk_table");
    const unknown = Object.keys(item).filter((key) => !FOREIGN_KEY_KEYS.includes(key));
    if (unknown.length) fail(`unknown keys ${unknown.join(", ")}`);
    const { column, fk_table, fk_column } = item;
    if (typeof column !== "string" || !column) return fail("column is required");
    if (columns && !names.has(column.toLowerCase())) fail(`no column ${column} in the table`);
    if (typeof fk_table !== "string" || !fk_table) return fail("fk_table is required");
    if (fk_column !== undefined && fk_column !== null && typeof fk_column !== "string") {
      fail("fk_column must be a column name");
    }
    return { column, table: fk_table, to: (fk_column as string | null | undefined) ?? null };
  });
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
