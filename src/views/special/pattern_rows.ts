/**
 * Sample rows for the pattern portfolio (`/-/patterns`): a `products` table of a fictional
 * `example` database, its cells rendered by the built-in cell rules (primary-key and
 * foreign-key links with labels, REAL values, URLs, truncated text, NULL, a BLOB download) —
 * without `render_cell` hooks, which would be asked about a database that does not exist.
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import { type CellContext, defaultCell } from "../../render/render_cell.ts";
import { type DisplayRow, makeDisplayRow } from "../../render/display_row.ts";
import type { SqlValue } from "../../db/values.ts";

/** The fictional database and table every sample belongs to. */
export const DATABASE = "example";
export const TABLE = "products";

/** The sample table's columns, in order. */
export const COLUMNS = ["id", "name", "category_id", "price", "url", "notes", "photo"];

const ROWS: SqlValue[][] = [
  [1, "Chef knife", 1, 34.5, "https://example.com/knife", "Hand wash only", null],
  [2, "Watering can", 2, 9, null, "Holds nine litres and has a long spout for seedlings", null],
  [3, "Mystery box", null, null, null, "", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])],
];

function cellContext(svc: ViewHost, table: string | null): CellContext {
  const rowPath = (row: Record<string, unknown>) =>
    `${svc.urls.table(DATABASE, TABLE)}/${String(row.id)}`;
  return {
    svc,
    request: null,
    database: DATABASE,
    table,
    truncate: 40,
    column_types: table ? { price: "REAL" } : {},
    foreign_keys: table
      ? [{ columns: ["category_id"], other_table: "categories", other_columns: ["id"] }]
      : [],
    labels: new Map([["category_id", new Map<unknown, unknown>([[1, "Kitchen"], [2, "Garden"]])]]),
    link_columns: table ? ["id"] : [],
    rowUrl: table ? rowPath : undefined,
    blobUrl: (row, column) =>
      table ? `${rowPath(row)}.blob?_blob_column=${encodeURIComponent(column)}` : null,
  };
}

/** Display rows as `_table.html` gets them; `table` null renders them as a query's. */
export function sampleRows(svc: ViewHost, table: string | null, limit = ROWS.length): DisplayRow[] {
  const ctx = cellContext(svc, table);
  return ROWS.slice(0, limit).map((values) => {
    const row = Object.fromEntries(COLUMNS.map((column, i) => [column, values[i]]));
    return makeDisplayRow(COLUMNS.map((column, i) => ({
      column,
      value: defaultCell(ctx, row, column, values[i]),
      raw: values[i],
    })));
  });
}

const TYPES: Record<string, string> = {
  id: "INTEGER",
  name: "TEXT",
  category_id: "INTEGER",
  price: "REAL",
  url: "TEXT",
  notes: "TEXT",
  photo: "BLOB",
};

/**
 * `display_columns` of the sample table page, sorted by price descending, then name: each heading
 * with its arrow, and its place among the two sort keys.
 */
export function sampleColumns(svc: ViewHost, sortable = true) {
  const table = String(svc.urls.table(DATABASE, TABLE));
  const sorts: Record<string, ["asc" | "desc", number]> = { price: ["desc", 1], name: ["asc", 2] };
  return COLUMNS.map((name) => {
    const [sorted, position] = sortable ? sorts[name] ?? [null, null] : [null, null];
    return {
      name,
      sortable,
      is_pk: name === "id",
      type: TYPES[name],
      notnull: name === "name" ? 1 : 0,
      description: name === "price" ? "Price in euros, tax included" : null,
      sort_url: sortable
        ? `${table}?${sorted === "asc" && position === 1 ? "_sort_desc" : "_sort"}=${name}`
        : null,
      add_sort_url: sortable ? `${table}?_sort_desc=price&_sort=name&_sort=${name}` : null,
      sorted,
      sort_position: position,
      sort_count: sortable ? 2 : 0,
    };
  });
}
