/**
 * `/<db>/<table>/<pks>`: one row as HTML, JSON, CSV or a plugin format, plus `.blob` downloads of
 * its BLOB cells. Related rows (`foreign_key_tables`) are listed on the HTML page and, in JSON,
 * with 1.0's `?_extra=foreign_key_tables` or the spec era's plural `?_extras=`. 1.0's other row
 * extras (`columns`, `primary_keys`, `database`, `table`, `private`, `query`, `metadata`,
 * `render_cell`) come after the row; an unknown one is a 400.
 *
 * @module
 */

import type { ResolvedRow, ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, Forbidden } from "../../http/errors.ts";
import { attachment } from "../../http/content_disposition.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { rowKeys } from "../../db/results.ts";
import { rowPathOf, tilde_encode } from "../../util/tilde.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { bodyClass } from "../../render/css_class.ts";
import { displayRows, pluginRenderedCells } from "../../render/render_cell.ts";
import { columnDetailsExtra, databaseColor, requestExtra } from "../../render/page_extras.ts";
import { type ColumnTypes, realColumnTypes } from "../../render/json.ts";
import { ensureKnownFormat, formatLinks, respondWithRows } from "../../render/output_format.ts";
import type { RowsPage } from "../../render/rows_page.ts";
import { renderPage } from "../../render/render_page.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";
import { columnTypesExtra, typedColumns } from "../typed_columns.ts";
import { foreignKeyTables } from "./row_related.ts";
import { columnTypes, rowForeignKeyCells } from "./row_cells.ts";

/** GET `/<db>/<table>/<pks>`. */
export async function rowView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table } = await svc.resolve_table(request);
  const isPrivate = await ensureRowVisible(svc, request, db, table);
  ensureKnownFormat(svc, request, ["blob"]);
  const start = performance.now();
  const resolved = await svc.resolve_row(request);
  const query_ms = performance.now() - start;
  if (request.url_vars.format === "blob") return blobDownload(request, resolved);

  const columns = [...rowKeys(resolved.row)];
  // 1.0 leads with `ok`, then writes the row before its keys (examples 27–31 of the spec's era
  // had `ok` after them).
  const defaultKeys: Record<string, unknown> = { ok: true, database: db.name, table };
  const keysAfterRows: Record<string, unknown> = {
    primary_keys: resolved.pks,
    primary_key_values: resolved.pk_values,
  };
  // Incoming references: 1.0 lists them with `_extra=foreign_key_tables`; the plural `_extras=`
  // of the spec's era still works.
  let related: Promise<unknown> | null = null;
  const foreign_key_tables = () =>
    related ??= foreignKeyTables(svc, db, table, resolved.pk_values, request.actor);
  const plural = request.args.getlist("_extras").flatMap((v) => v.split(","));
  if (plural.includes("foreign_key_tables")) {
    keysAfterRows.foreign_key_tables = await foreign_key_tables();
  }
  keysAfterRows.query_ms = query_ms;
  // Declared types: a REAL column's 12 is written 12.0 in JSON, CSV and HTML, as on table pages.
  // And by storage: a REAL in a column declared without a type (or in a view) is written so too.
  const declared = await columnTypes(db, table);
  const types = { ...declared, ...realColumnTypes(columns, resolved.real_columns ?? []) };
  const page: RowsPage = {
    view_name: "row",
    database: db.name,
    table,
    query_name: null,
    columns,
    rows: [[...resolved.row]],
    sql: resolved.sql,
    params: resolved.params,
    truncated: false,
    error: null,
    next: null,
    next_url: null,
    primary_keys: resolved.pks,
    defaultKeys,
    keysAfterRows,
    // 1.0's row extras (`_extra=columns,foreign_key_tables,…`), written after the row.
    extras: {
      columns: () => columns,
      primary_keys: () => resolved.pks,
      database: () => db.name,
      table: () => table,
      private: () => isPrivate,
      query: () => ({ sql: resolved.sql, params: resolved.params }),
      metadata: () => {
        const config = (svc.metadata().table(db.name, table) ?? {}) as Record<string, unknown>;
        return { ...config, columns: config.columns ?? {} };
      },
      render_cell: () =>
        pluginRenderedCells({ svc, request, database: db.name, table }, columns, [
          [...resolved.row],
        ]),
      foreign_key_tables,
      column_types: () => columnTypesExtra(svc, db.name, table),
      column_details: async () =>
        columnDetailsExtra(
          (await db.table_column_details(table)).map((row) => row.toObject()),
          resolved.pks,
        ),
      request: () => requestExtra(request, new URLSearchParams(request.query_string)),
      database_color: () => databaseColor(db),
    },
    extrasAfterRows: true,
    cache: true,
    column_types: types,
    blobUrl: (_row, column) => blobPath(svc, resolved, column),
    filename: `${table}-${resolved.pk_values.join(",")}`,
  };
  return await respondWithRows(
    svc,
    request,
    page,
    () => rowHtml(svc, request, { resolved, page, types, declared, isPrivate, query_ms }),
  );
}

/**
 * Throws Forbidden when the table is not visible, and BadRequest when the URL names a different
 * number of key values than the table has keys; returns whether the table is private.
 */
async function ensureRowVisible(
  svc: ViewHost,
  request: Request,
  db: Database,
  table: string,
): Promise<boolean> {
  const [visible, isPrivate] = await svc.check_visibility(request.actor, {
    action: "view-table",
    resource: [db.name, table],
  });
  if (!visible) throw new Forbidden("You do not have permission to view this table");
  const keyCount = Math.max((await db.primary_keys(table)).length, 1);
  const given = (request.url_vars.pks ?? "").split(",").length;
  if (given !== keyCount) {
    throw new BadRequest(`Expected ${keyCount} primary key value${keyCount === 1 ? "" : "s"}`, {
      hint: await rowUrlHint(svc, db, table),
    });
  }
  return isPrivate;
}

/**
 * How rows of `table` are addressed, with the first row's URL as an example: the key columns'
 * values, tilde-encoded, joined by commas.
 */
async function rowUrlHint(svc: ViewHost, db: Database, table: string) {
  const pks = await db.primary_keys(table);
  const keys = pks.length ? pks : ["rowid"];
  const bracket = (name: string) => `[${name.replaceAll("]", "]]")}]`;
  const sqlite = db.engine === "sqlite";
  const quoted = keys.map((k) => sqlite ? bracket(k) : db.dialect.quoteIdentifier(k)).join(", ");
  const from = sqlite ? bracket(table) : db.dialect.tableName(table);
  const first = (await db.execute(`select ${quoted} from ${from} limit 1`)).first();
  const path = String(svc.urls.table(db.name, table));
  const text = `Rows of ${table} are addressed by ${
    keys.length > 1 ? `their ${keys.length} key values (${keys.join(", ")})` : `their ${keys[0]}`
  }, separated by commas: ${path}/${keys.map((k) => `<${k}>`).join(",")}`;
  if (!first) return { text };
  const href = `${path}/${rowPathOf(keys.map((_, i) => first[i]))}`;
  return { text: `${text}. For example:`, href };
}

/** What the HTML row page needs beyond the request. */
interface RowHtmlInput {
  resolved: ResolvedRow;
  page: RowsPage;
  types: ColumnTypes;
  /** The columns' declared types, shown as they are. */
  declared: Record<string, string>;
  isPrivate: boolean;
  query_ms: number;
}

/** The HTML row page: the row's cells rendered as on the table page, and its related tables. */
async function rowHtml(
  svc: ViewHost,
  request: Request,
  { resolved, page, types, declared, isPrivate, query_ms }: RowHtmlInput,
): Promise<Response> {
  const { db, table } = resolved;
  const columns = page.columns;
  const names = { database: db.name, table };
  const rowPath = (r: Record<string, unknown>) =>
    `${svc.urls.table(db.name, table)}/${rowPathOf(resolved.pks.map((k) => r[k]))}`;
  // Foreign keys link to their row and show its label, as on the table page.
  const { foreign_keys, labels } = await rowForeignKeyCells(
    svc,
    request,
    db,
    table,
    columns,
    page.rows[0],
  );
  const display_rows = await displayRows(
    {
      svc,
      request,
      database: db.name,
      table,
      // The row page is where a value cut short in a table is read in full.
      truncate: 0,
      column_types: types,
      typed_columns: await typedColumns(svc, db.name, table),
      foreign_keys,
      labels,
      link_columns: [],
      rowUrl: rowPath,
      blobUrl: (_r, column) => blobPath(svc, resolved, column),
    },
    columns,
    page.rows,
  );
  const row = rowObject(columns, page.rows[0]);
  const hookArgs = { request, database: db.name, table, row };
  const row_actions = await actionLinks(svc, "row_actions", { ...hookArgs, actor: request.actor });
  const top = await topHtml(svc, "top_row", hookArgs);
  return await renderPage(svc, request, templateCandidates("row", names), {
    row_actions,
    // Rows of a database that can be written have a history of the changes made here.
    history_url: db.is_mutable && request.url_vars.pks
      ? `${svc.urls.table(db.name, table)}/${request.url_vars.pks}/-/history`
      : null,
    top_row: () => top,
    database: db.name,
    table,
    private: isPrivate,
    request,
    body_class: bodyClass("row", names),
    columns,
    display_columns: columns.map((name) => ({
      name,
      sortable: false,
      is_pk: resolved.pks.includes(name),
      type: declared[name] ?? "",
      description: null,
    })),
    display_rows,
    table_rows_template: svc.templates.select(templateCandidates("row_rows", names)),
    primary_keys: resolved.pks,
    primary_key_values: resolved.pk_values,
    foreign_key_tables: await foreignKeyTables(svc, db, table, resolved.pk_values, request.actor),
    renderers: await formatLinks(svc, request, page),
    query_ms,
  }, { view_name: "row", database: db.name, table, columns });
}

/** The row as `{column: value}`, for the row hooks. */
function rowObject(columns: string[], row: unknown): Record<string, unknown> {
  const values = row as ArrayLike<unknown> | undefined;
  return Object.fromEntries(columns.map((column, i) => [column, values?.[i] ?? null]));
}

/** Path of the `.blob` download of one cell of this row. */
function blobPath(svc: ViewHost, resolved: ResolvedRow, column: string): string {
  const pk = resolved.pk_values.map(tilde_encode).join(",");
  const base = String(svc.urls.table(resolved.db.name, resolved.table));
  return `${base}/${pk}.blob?_blob_column=${encodeURIComponent(column)}`;
}

/** `.blob?_blob_column=col`: the cell's bytes as a download. */
function blobDownload(request: Request, resolved: ResolvedRow): Response {
  const column = request.args.get("_blob_column") ?? "";
  const value = column ? resolved.row[column] : undefined;
  if (value === undefined) throw new BadRequest(`${column} is not a valid column`);
  if (value !== null && !(value instanceof Uint8Array)) {
    throw new BadRequest(`${column} is not a BLOB column`);
  }
  const key = resolved.pk_values.map(tilde_encode).join(",");
  // A NULL cell downloads as an empty file (200), as the reference answers: scripts that fetch
  // every `.blob` of a column must not fail on the rows without one.
  return new Response(value ?? new Uint8Array(0), {
    content_type: "application/binary",
    headers: {
      "content-disposition": attachment(`${resolved.table}-${key}.blob`),
      "x-content-type-options": "nosniff",
    },
  });
}
