/**
 * `POST /<db>/<table>/-/upload`: one part of a CSV or TSV file (the body, `text/csv` or
 * `text/tab-separated-values`, UTF-8 unless its `charset` says otherwise, at most
 * `max_post_body_bytes`), read and typed by the importer `vitrine insert` uses and inserted in one
 * transaction: a part that fails is a 400 naming the file's line, and leaves none of its rows.
 * The browser's upload panel (static/upload.js) cuts a file into such parts at line breaks
 * outside quotes and sends them one after another.
 *
 * The query string says how to read the part: `create=1` (the table is new: made from the
 * part's header row, with `pk` and, by position, `type` = `integer`, `float`, `text`, `date`,
 * `datetime` or empty for "from the data"), `column` (repeated: the names of the columns of a part
 * without a header row, as the first part's answer gave them), `line` (the file line the part
 * starts on), `delimiter` (default `,`, a tab for TSV) and `continue=1` (the first part of this
 * file created the table: its columns go on widening as one import would; its `type`s, sent again,
 * hold a chosen `date` or `datetime` column to its type). A chosen type is the user's: `text`
 * gives no date type to a column of dates, `date` and `datetime` (TEXT columns with that column
 * type) refuse a value that is not one, naming its line. Permissions: `create-table` and
 * `insert-row` to create, `insert-row` to append.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, PayloadTooLarge } from "../../http/errors.ts";
import { encodingNamed } from "../../db/import/encoding.ts";
import { checkDelimiter } from "../../db/import/open_source.ts";
import { ImportError } from "../../db/import/import_error.ts";
import type { ImportColumnType, ImportType } from "../../db/import/column_types.ts";
import {
  importUploadPart,
  type UploadPartOptions,
  type UploadPartResult,
} from "../../db/import/upload_part.ts";
import {
  requireActions,
  requireMutable,
  requireUnprotected,
  requireVisible,
  targetDatabase,
  targetTable,
} from "./target.ts";
import { afterCommit, runWrite } from "./run_write.ts";
import { checkUploadTypes } from "./upload_types.ts";
import { TABLE_NAME } from "./create.ts";
import { CreateTableEvent, InsertRowsEvent } from "../../plugins/events.ts";
import { tilde_decode } from "../../util/tilde.ts";

const PARAMETERS = ["create", "pk", "type", "column", "line", "delimiter", "continue"];
/** What the type menu may choose: a column's storage type, or a date column type (TEXT). */
type UploadChoice = ImportType | ImportColumnType;
const TYPES: Record<string, UploadChoice | null> = {
  "": null,
  integer: "INTEGER",
  float: "FLOAT",
  text: "TEXT",
  date: "date",
  datetime: "datetime",
};
const FORMATS: Record<string, string> = {
  "text/csv": ",",
  "text/tab-separated-values": "\t",
};

/** `/-/upload`. */
export async function uploadView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  const table = tilde_decode(request.url_vars.table ?? "");
  requireUnprotected(db, table);
  const { choices, ...part } = parsePart(request, table);
  if (part.create) {
    await requireVisible(svc, request.actor, db.name, null);
    await requireActions(svc, request, ["create-table"], db.name, null);
    await requireActions(svc, request, ["insert-row"], db.name, table);
  } else {
    await targetTable(svc, request);
    await requireVisible(svc, request.actor, db.name, table);
    await requireActions(svc, request, ["insert-row"], db.name, table);
  }
  requireMutable(db);
  if (db.row_writes) throw new BadRequest(`Uploading files is not available on ${db.engine}`);
  const text = await partText(svc, request);
  await checkUploadTypes(svc, db.name, { ...part, text }, choices);
  // The date and datetime column types the first part gave the table: a later part's value that
  // is no such date takes the type away (the data stays as it is).
  const temporal: Record<string, ImportColumnType> = {};
  if (part.continues) {
    for (const [column, assigned] of await svc.column_type_store.forTable(db.name, table)) {
      if (assigned?.type === "date" || assigned?.type === "datetime") {
        temporal[column] = assigned.type;
      }
    }
  }

  let result;
  try {
    result = await runWrite(
      svc,
      request,
      db,
      (conn) => importUploadPart(conn, { ...part, text, temporal }),
    );
  } catch (error) {
    // The line also as a number, for the page that sent the part.
    if (error instanceof ImportError) error.extra = { ...error.extra, line: error.line };
    throw error;
  }
  // Only a part that created or rebuilt the table changes what the catalog lists.
  if (result.schemaChanged) await svc.refresh_catalog();
  const warning = await afterCommit(
    "its column types could not be kept",
    () => storeColumnTypes(svc, db.name, table, result, choices),
  );
  const fields = { actor: request.actor, database: db.name, table };
  // No read after the write: a part may take longer than sql_time_limit_ms, which a read made
  // for the same request would then be past.
  if (result.schema !== null) {
    await svc.track_event(new CreateTableEvent({ ...fields, schema: result.schema }));
  }
  if (result.rows) {
    await svc.track_event(
      new InsertRowsEvent({ ...fields, num_rows: result.rows, ignore: false, replace: false }),
    );
  }
  return Response.json({
    ok: true,
    database: db.name,
    table,
    table_url: svc.absolute_url(request, String(svc.urls.table(db.name, table))),
    created: result.created,
    row_count: result.rows,
    columns: result.fileColumns,
    next_line: result.nextLine,
    ...(warning === null ? {} : { warnings: [warning] }),
  }, { status: 201 });
}

/**
 * A new table's TEXT columns of ISO dates (or dates and times) get the `date` (`datetime`)
 * column type, as `vitrine insert` and pasted rows give it, unless the menu chose another type
 * for them; a column the menu made `date` or `datetime` gets that type; a later part that breaks
 * an inferred one takes it away.
 */
async function storeColumnTypes(
  svc: ViewHost,
  database: string,
  table: string,
  result: UploadPartResult,
  choices: readonly (UploadChoice | null)[],
): Promise<void> {
  if (result.created) {
    const chosen = new Map(result.fileColumns.map((name, i) => [name, choices[i] ?? null]));
    for (const { name, column_type: inferred } of result.columns) {
      const choice = chosen.get(name) ?? null;
      const column_type = choice === null
        ? inferred
        : choice === "date" || choice === "datetime"
        ? choice
        : null;
      if (column_type && svc.columnTypes.find(column_type)) {
        await svc.column_type_store.set(database, table, name, { type: column_type, config: null });
      }
    }
  }
  for (const column of result.notTemporal) {
    await svc.column_type_store.set(database, table, column, null);
  }
}

/** The query string's options, every unknown or invalid one a 400. */
function parsePart(
  request: Request,
  table: string,
): Omit<UploadPartOptions, "text" | "temporal"> & { choices: (UploadChoice | null)[] } {
  const args = request.args;
  const invalid = args.keys().filter((key) => !PARAMETERS.includes(key)).sort();
  if (invalid.length) throw new BadRequest(`Invalid parameter: "${invalid.join('", "')}"`);
  const create = flag(args.get("create"), "create");
  const continues = flag(args.get("continue"), "continue");
  const columns = args.getlist("column");
  const choices = args.getlist("type").map((type) => {
    const found = TYPES[type.trim().toLowerCase()];
    if (found === undefined) {
      throw new BadRequest(
        `Invalid type "${type}": use integer, float, text, date, datetime, or leave it empty`,
      );
    }
    return found;
  });
  // A date is kept as text; its column type is set once the table is made.
  const types = choices.map((choice) =>
    choice === "date" || choice === "datetime" ? "TEXT" : choice
  );
  const pk = args.getlist("pk");
  if (create && columns.length) {
    throw new BadRequest("A new table is made from the header row: send it, not column names");
  }
  if (create && continues) throw new BadRequest('Use one of "create" and "continue"');
  if (create && !TABLE_NAME.test(table)) throw new BadRequest("Invalid table name");
  if (!create && pk.length) throw new BadRequest('"pk" is for a new table ("create=1")');
  if (!create && !continues && types.length) {
    throw new BadRequest('"type" is for a new table ("create=1") and the rest of its file');
  }
  if (continues && !columns.length) {
    throw new BadRequest('"continue" is for the parts after the first: name their columns');
  }
  const lineText = args.get("line") ?? "1";
  const line = Number(lineText);
  if (!/^[1-9][0-9]*$/.test(lineText) || !Number.isSafeInteger(line)) {
    throw new BadRequest(`"line" is a line number (1 or more), not "${lineText}"`);
  }
  const contentType = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const delimiterText = args.get("delimiter");
  let delimiter = FORMATS[contentType] ?? ",";
  if (delimiterText !== null) {
    try {
      delimiter = checkDelimiter(delimiterText);
    } catch (error) {
      throw new BadRequest((error as Error).message);
    }
  }
  if (delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    throw new BadRequest("The delimiter cannot be a quote or a line break");
  }
  return {
    table,
    delimiter,
    line,
    columns: columns.length ? columns : null,
    create,
    pk,
    types,
    continues,
    choices,
  };
}

function flag(value: string | null, name: string): boolean {
  if (value === null || value === "" || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new BadRequest(`"${name}" is 1 or 0, not "${value}"`);
}

/** The body as text: a CSV or TSV content type, within the size limit, in its encoding. */
async function partText(svc: ViewHost, request: Request): Promise<string> {
  const [type, ...params] = (request.headers["content-type"] ?? "").split(";");
  if (!(type.trim().toLowerCase() in FORMATS)) {
    throw new BadRequest(
      "Invalid content-type, must be text/csv or text/tab-separated-values",
    );
  }
  let body: Uint8Array;
  try {
    body = await request.post_body();
  } catch (error) {
    if (!(error instanceof PayloadTooLarge)) throw error;
    const limit = Number(svc.setting("max_post_body_bytes")).toLocaleString("en");
    throw new PayloadTooLarge(
      `A part of an upload is at most ${limit} bytes (max_post_body_bytes): send smaller parts`,
    );
  }
  const charset = params.map((param) => param.trim().match(/^charset=(.+)$/i)?.[1])
    .find(Boolean)?.replace(/^"|"$/g, "") ?? "utf-8";
  let encoding: string;
  try {
    encoding = encodingNamed(charset);
  } catch (error) {
    throw new BadRequest((error as Error).message);
  }
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(body);
  } catch {
    throw new BadRequest(`The body is not valid ${charset} text: send UTF-8`);
  }
}
