/**
 * The row objects `_table.html` iterates (`display_rows`): `row["col"]` is the raw value,
 * `row.display("col")` the rendered cell HTML, `row.cells` the cells in column order.
 */
import { Markup } from "../util/markup.ts";

/** One rendered cell. */
export interface DisplayCell {
  column: string;
  /** Rendered HTML (render_cell hooks, foreign-key links, truncation). */
  value: Markup;
  /** The value as stored. */
  raw: unknown;
  /** `integer`, `float`, `text`, `blob`, `null`, `pk`... used as a `type-<x>` class. */
  value_type: string;
  /**
   * True for a NULL in a column of numbers (class `numeric` beside `type-none`), so that it lines
   * up with the column's right-aligned numbers instead of sitting on the left like text.
   */
  numeric_null: boolean;
}

/** A display row: raw values by column name plus the rendered cells. */
export type DisplayRow = Record<string, unknown> & {
  cells: DisplayCell[];
  display(column: string): Markup;
};

/** `cells` and `display()` of every display row: shared, not made per row. */
const CELLS = Symbol("cells");
const rowMethods = {
  display(this: { [CELLS]: DisplayCell[] }, column: string): Markup {
    // Rows have a handful of cells: a scan beats building a map for each row. From the end, so
    // that of duplicate column names the last wins, as it does for `row[column]`.
    const cells = this[CELLS];
    for (let i = cells.length - 1; i >= 0; i--) {
      if (cells[i].column === column) return cells[i].value;
    }
    return new Markup("");
  },
};
const rowPrototype = Object.create(Object.prototype, {
  cells: {
    get(this: { [CELLS]: DisplayCell[] }) {
      return this[CELLS];
    },
    enumerable: false,
  },
  display: { value: rowMethods.display, enumerable: false },
});

/**
 * Build a display row from rendered cells (plain strings are escaped). Its own enumerable keys
 * are the columns (raw values); `cells` and `display` come from a shared prototype, or are set
 * on the row itself when a column has one of those names (they must still work).
 */
export function makeDisplayRow(
  cells: {
    column: string;
    value: Markup | string;
    raw: unknown;
    value_type?: string;
    numeric_null?: boolean;
  }[],
): DisplayRow {
  const normalised: DisplayCell[] = new Array(cells.length);
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    normalised[i] = {
      column: cell.column,
      value: cell.value instanceof Markup ? cell.value : Markup.escape(cell.value),
      raw: cell.raw,
      value_type: cell.value_type ?? valueType(cell.raw),
      numeric_null: cell.numeric_null ?? false,
    };
  }
  return displayRowOf(normalised);
}

/**
 * A display row made of `cells` themselves, complete already (every field set, as
 * {@link makeDisplayRow} would make them): the row keeps the array and its cells, which the
 * caller must not change afterwards. For a page of rows this saves a second object per cell.
 */
export function displayRowOf(cells: DisplayCell[]): DisplayRow {
  const row = Object.create(rowPrototype) as Record<string | symbol, unknown>;
  for (let i = 0; i < cells.length; i++) row[cells[i].column] = cells[i].raw;
  // A symbol key: never listed by for-in, Object.keys or JSON, like the non-enumerable members.
  row[CELLS] = cells;
  if (Object.hasOwn(row, "cells") || Object.hasOwn(row, "display")) {
    Object.defineProperty(row, "cells", { value: cells, enumerable: false });
    Object.defineProperty(row, "display", { value: rowMethods.display, enumerable: false });
  }
  return row as DisplayRow;
}

/** The `type-<x>` class of a stored value: `none`, `int`, `float`, `bytes` or `str`. */
export function valueType(raw: unknown): string {
  if (raw === null || raw === undefined) return "none";
  if (typeof raw === "bigint") return "int";
  if (typeof raw === "number") return Number.isInteger(raw) ? "int" : "float";
  if (raw instanceof Uint8Array) return "bytes";
  return "str";
}
