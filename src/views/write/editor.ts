/**
 * What the table and row pages need to let an actor edit rows in the browser: which write
 * actions the actor holds there, the endpoints, and each column's name, type and (on row pages)
 * current value. Pages get it as `write_ui` through `extra_template_vars`; the forms it drives
 * (templates/_write_table.html, _write_row.html, static/write.js) call the JSON write API.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Actor } from "../../auth/allow.ts";
import { pathFromRowPks } from "../../util/tilde.ts";
import { realText } from "../../util/exact_json.ts";
import { allowed, protectedTable } from "./target.ts";
import { holdsNumbersOnly, typeAffinity } from "../../db/write_checks.ts";
import { type EditorForeignKey, foreignKeyFields } from "./fk_fields.ts";
import { columnTypeAssignments } from "../typed_columns.ts";

/** A menu entry of `table_actions` / `database_actions` / `row_actions`. */
export interface MenuLink {
  href: string;
  label: string;
  description?: string;
}

/** One column as the forms show it. */
export interface EditorColumn {
  name: string;
  /** Declared type, as written in the schema ("" when none). */
  type: string;
  /** SQLite's type affinity: INTEGER, REAL, NUMERIC, TEXT or BLOB (no declared type). */
  affinity: string;
  /** Only numbers are saved (see `holdsNumbersOnly`): the form says so before sending. */
  numbers_only: boolean;
  notnull: boolean;
  has_default: boolean;
  is_pk: boolean;
  /** An INTEGER PRIMARY KEY: SQLite numbers new rows itself when the field is left blank. */
  auto_pk: boolean;
  /** Row pages: the current value as text ("" for NULL and BLOBs). */
  value?: string;
  /** Row pages: `null`, `integer`, `real`, `text` or `blob` (BLOBs cannot be edited here). */
  kind?: string;
  /** A single-column foreign key: the label it points to and where to look others up. */
  fk?: EditorForeignKey;
  /** The column's column type (`date`, `json`, ...), or null. */
  column_type: string | null;
  /** The widget its column type asks for (see {@link widgetFor}), or null for the default. */
  widget: string | null;
}

/** The input a built-in column type edits with (plugins' types keep the default field). */
const WIDGETS: Record<string, string> = {
  date: "date",
  datetime: "datetime-local",
  url: "url",
  image: "url",
  email: "email",
  json: "json",
  markdown: "textarea",
  textarea: "textarea",
};

/** What the browser's date inputs can show: a value they cannot is edited as plain text. */
const PICKER_VALUES: Record<string, RegExp> = {
  "date": /^\d{4}-\d{2}-\d{2}$/,
  "datetime-local": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
};

/**
 * The widget for a column of type `columnType` holding `value` (undefined on insert forms). A
 * date or datetime picker shows only values of its own form, and would show any other (a time
 * zone, a space for the T) as empty: those stay plain text rather than seem erased.
 */
function widgetFor(columnType: string | null, value: string | undefined): string | null {
  const widget = columnType ? WIDGETS[columnType] ?? null : null;
  const picker = widget ? PICKER_VALUES[widget] : undefined;
  if (picker && value && !picker.test(value)) return null;
  return widget;
}

/**
 * True when `table` is a table (not a view) of a database that accepts writes, and not
 * Vitrine's own history (`db/history/protect.ts`).
 */
async function writableTable(svc: ViewHost, database: string, table: string): Promise<boolean> {
  const db = svc.databases.get(database);
  return Boolean(db?.is_mutable) && !protectedTable(db!, table) && await db!.table_exists(table);
}

/** The write actions of a table page's menu that `actor` may use. */
export async function tableActions(
  svc: ViewHost,
  actor: Actor | null,
  database: string,
  table: string,
): Promise<MenuLink[]> {
  if (!(await writableTable(svc, database, table))) return [];
  const links: MenuLink[] = [];
  if (await allowed(svc, actor, "insert-row", database, table)) {
    links.push({ href: "#insert-row", label: "Insert row" });
    links.push({
      href: "#paste-rows",
      label: "Paste rows",
      description: "Insert rows copied from a spreadsheet",
    });
    // The upload panel (upload_ui.ts) is there for SQLite tables only, like the importer.
    if (svc.databases.get(database)?.engine === "sqlite") {
      links.push({
        href: "#upload-rows",
        label: "Upload rows from a CSV file",
        description: "Add the rows of a CSV or TSV file",
      });
    }
  }
  if (await allowed(svc, actor, "alter-table", database, table)) {
    links.push({ href: `${svc.urls.table(database, table)}/-/alter-table`, label: "Alter table" });
  }
  if (await allowed(svc, actor, "drop-table", database, table)) {
    links.push({ href: "#drop-table", label: "Drop table" });
  }
  return links;
}

/** The write actions of a database page's menu that `actor` may use. */
export async function databaseActions(
  svc: ViewHost,
  actor: Actor | null,
  database: string,
): Promise<MenuLink[]> {
  const db = svc.databases.get(database);
  if (!db?.is_mutable || !(await allowed(svc, actor, "create-table", database, null))) return [];
  const href = `${svc.urls.path("/-/create-table")}?database=${encodeURIComponent(database)}`;
  return [{ href, label: "Create table" }];
}

/** Table and row pages: `write_ui` (and `row_actions`) when the actor may write there. */
export async function editorVars(
  svc: ViewHost,
  request: Request | null,
  view_name: string,
  database: string | null,
  table: string | null,
): Promise<Record<string, unknown> | null> {
  if (!request || !database || !table || (view_name !== "table" && view_name !== "row")) {
    return null;
  }
  if (!(await writableTable(svc, database, table))) return null;
  const actor = request.actor;
  const may = (action: string) => allowed(svc, actor, action, database, table);
  const tableUrl = String(svc.urls.table(database, table));
  const db = svc.databases.get(database)!;
  const pks = await db.primary_keys(table);
  // A delete can be undone from the history only where it is recorded and the actor may revert.
  const undoable = (await svc.history.mode(db)) !== "off" &&
    await allowed(svc, actor, "revert-change", database, null);
  if (view_name === "table") {
    const [insert, drop] = [await may("insert-row"), await may("drop-table")];
    const [update, remove] = [await may("update-row"), await may("delete-row")];
    if (!insert && !drop && !update && !remove) return null;
    return {
      write_ui: {
        table_url: tableUrl,
        database_url: String(svc.urls.database(database)),
        insert_url: insert ? `${tableUrl}/-/insert` : null,
        drop_url: drop ? `${tableUrl}/-/drop` : null,
        // Inline edits use each row's `/-/update`; the selection's bulk endpoints these two.
        update_url: update ? `${tableUrl}/-/update-rows` : null,
        delete_url: remove ? `${tableUrl}/-/delete-rows` : null,
        max_rows: Number(svc.setting("max_insert_rows")),
        undoable,
        primary_keys: pks,
        columns: withForeignKeys(
          await editorColumns(svc, database, table, pks),
          await foreignKeyFields(svc, actor, database, table, null),
        ),
      },
    };
  }
  const [update, remove] = [await may("update-row"), await may("delete-row")];
  if (!update && !remove) return null;
  let row: Record<string, unknown>;
  try {
    row = (await svc.resolve_row(request)).row as unknown as Record<string, unknown>;
  } catch {
    return null;
  }
  const rowUrl = `${tableUrl}/${pathFromRowPks(row, pks, pks.length === 0)}`;
  const columns = withForeignKeys(
    (await editorColumns(svc, database, table, pks)).map((column) => {
      const current = currentValue(row[column.name], column.affinity);
      return { ...column, ...current, widget: widgetFor(column.column_type, current.value) };
    }),
    await foreignKeyFields(svc, actor, database, table, row),
  );
  const row_actions: MenuLink[] = [];
  if (update) row_actions.push({ href: "#edit-row", label: "Edit row" });
  if (remove) row_actions.push({ href: "#delete-row", label: "Delete row" });
  return {
    row_actions,
    write_ui: {
      table_url: tableUrl,
      row_url: rowUrl,
      update_url: update ? `${rowUrl}/-/update` : null,
      delete_url: remove ? `${rowUrl}/-/delete` : null,
      undoable,
      primary_keys: pks,
      columns,
    },
  };
}

async function editorColumns(
  svc: ViewHost,
  database: string,
  table: string,
  pks: string[],
): Promise<EditorColumn[]> {
  const details = await svc.databases.get(database)!.table_column_details(table);
  const types = await columnTypeAssignments(svc, database, table);
  return details
    .filter((column) => !column.hidden)
    .map((column) => {
      const type = String(column.type ?? "");
      const is_pk = pks.includes(String(column.name));
      return {
        name: String(column.name),
        type,
        affinity: typeAffinity(type),
        numbers_only: holdsNumbersOnly(type),
        notnull: Boolean(column.notnull),
        has_default: column.default_value !== null && column.default_value !== undefined,
        is_pk,
        auto_pk: is_pk && pks.length === 1 && type.toUpperCase() === "INTEGER",
        column_type: types.get(String(column.name))?.type ?? null,
        widget: widgetFor(types.get(String(column.name))?.type ?? null, undefined),
      };
    });
}

function withForeignKeys(
  columns: EditorColumn[],
  keys: Map<string, EditorForeignKey>,
): EditorColumn[] {
  return columns.map((column) =>
    keys.has(column.name) ? { ...column, fk: keys.get(column.name) } : column
  );
}

function currentValue(value: unknown, columnAffinity: string): { value: string; kind: string } {
  if (value === null || value === undefined) return { value: "", kind: "null" };
  if (value instanceof Uint8Array) return { value: "", kind: "blob" };
  if (typeof value === "bigint") return { value: value.toString(), kind: "integer" };
  if (typeof value === "number") {
    // SQLite hands back whole REALs as JS integers; a REAL column shows them as 12.0.
    if (Number.isInteger(value) && columnAffinity !== "REAL") {
      return { value: String(value), kind: "integer" };
    }
    return { value: realText(value), kind: "real" };
  }
  return { value: String(value), kind: "text" };
}
