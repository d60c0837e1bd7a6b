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
}

/** A display row: raw values by column name plus the rendered cells. */
export type DisplayRow = Record<string, unknown> & {
  cells: DisplayCell[];
  display(column: string): Markup;
};

/** Build a display row from rendered cells (plain strings are escaped). */
export function makeDisplayRow(
  cells: { column: string; value: Markup | string; raw: unknown; value_type?: string }[],
): DisplayRow {
  const normalised: DisplayCell[] = cells.map((cell) => ({
    column: cell.column,
    value: cell.value instanceof Markup ? cell.value : Markup.escape(cell.value),
    raw: cell.raw,
    value_type: cell.value_type ?? valueType(cell.raw),
  }));
  const byColumn = new Map(normalised.map((cell) => [cell.column, cell]));
  const row: Record<string, unknown> = Object.fromEntries(
    normalised.map((cell) => [cell.column, cell.raw]),
  );
  Object.defineProperty(row, "cells", { value: normalised, enumerable: false });
  Object.defineProperty(row, "display", {
    value: (column: string) => byColumn.get(column)?.value ?? new Markup(""),
    enumerable: false,
  });
  return row as DisplayRow;
}

function valueType(raw: unknown): string {
  if (raw === null || raw === undefined) return "none";
  if (typeof raw === "bigint") return "int";
  if (typeof raw === "number") return Number.isInteger(raw) ? "int" : "float";
  if (raw instanceof Uint8Array) return "bytes";
  return "str";
}
