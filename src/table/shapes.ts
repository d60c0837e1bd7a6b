/**
 * `_shape=` and the other JSON row modifiers (API-DETAILS §2.2): `objects`, `arrays`, `array`,
 * `arrayfirst`, `object`; `_json=col` and `_json_infinity`.
 *
 * Note for renderers: `object` (and row objects) are plain JS objects, so integer-like keys
 * (`"1"`, `"2"`) iterate in numeric order whatever the row order was.
 *
 * @module
 */

import { argList, type ArgsLike, valueAsBoolean } from "./args.ts";
import { TableArgsError } from "./errors.ts";
import { tilde_encode as tildeEncode } from "../util/tilde.ts";

/** The recognised `_shape` values. */
export const SHAPES = ["objects", "arrays", "array", "arrayfirst", "object"] as const;
/** One `_shape` value. */
export type Shape = typeof SHAPES[number];

/** `_shape` from the args (default `objects`); anything else → 400 `Invalid _shape: x`. */
export function parseShape(args: ArgsLike, defaultShape: Shape = "objects"): Shape {
  const given = args.get("_shape");
  if (!given) return defaultShape;
  if (!(SHAPES as readonly string[]).includes(given)) {
    throw new TableArgsError(`Invalid _shape: ${given}`);
  }
  return given as Shape;
}

/** Rows as `{column: value}` objects. */
export function rowsToObjects(
  columns: string[],
  rows: ArrayLike<unknown>[],
): Record<string, unknown>[] {
  return rows.map((row) => {
    const object: Record<string, unknown> = {};
    columns.forEach((column, i) => object[column] = row[i]);
    return object;
  });
}

const cellValue = (cell: unknown) =>
  cell !== null && typeof cell === "object" && "value" in cell
    ? (cell as { value: unknown }).value
    : cell;

/** `1`, or `A~2F1001,2` for compound keys: each part tilde-encoded, comma-joined. */
export function pkString(row: Record<string, unknown>, pks: string[]): string {
  return pks.map((pk) => tildeEncode(String(cellValue(row[pk])))).join(",");
}

/** Where the rows come from, for the `object` shape's errors. */
export interface ShapeContext {
  /** Primary keys, or null when the rows are not a table's (query, view). */
  primary_keys: string[] | null;
}

/**
 * Rows in the requested shape. `objects`/`array` give row objects, `arrays` lists, `arrayfirst`
 * the first column's values, `object` a record keyed by {@link pkString}.
 */
export function shapeRows(
  shape: Shape,
  columns: string[],
  rows: ArrayLike<unknown>[],
  context: ShapeContext,
): unknown {
  switch (shape) {
    case "arrays":
      return rows.map((row) => Array.from(row));
    case "arrayfirst":
      return rows.map((row) => row[0]);
    case "objects":
    case "array":
      return rowsToObjects(columns, rows);
    case "object": {
      if (context.primary_keys === null) {
        throw new TableArgsError("_shape=object is only available on tables");
      }
      if (context.primary_keys.length === 0) {
        throw new TableArgsError("_shape=object not available for tables with no primary keys");
      }
      const keyed: Record<string, unknown> = {};
      for (const row of rowsToObjects(columns, rows)) {
        keyed[pkString(row, context.primary_keys)] = row;
      }
      return keyed;
    }
  }
}

/** `_json=col` names (repeatable). */
export function jsonColumns(args: ArgsLike): string[] {
  return argList(args, "_json");
}

/** Rows with the named columns' JSON text parsed; text that is not JSON stays as it is. */
export function parseJsonColumns(
  columns: string[],
  rows: ArrayLike<unknown>[],
  names: string[],
): unknown[][] {
  const indexes = columns.flatMap((c, i) => names.includes(c) ? [i] : []);
  return rows.map((row) => {
    const out = Array.from(row);
    for (const i of indexes) {
      if (typeof out[i] !== "string") continue;
      try {
        out[i] = JSON.parse(out[i] as string);
      } catch {
        // Not JSON: leave the text.
      }
    }
    return out;
  });
}

/** True when `_json_infinity=on` asks to keep `Infinity` / `-Infinity` values. */
export function keepInfinity(args: ArgsLike): boolean {
  return valueAsBoolean(args.get("_json_infinity")) === true;
}

/** Row with `Infinity` / `-Infinity` replaced by null (the default JSON behaviour). */
export function removeInfinities(row: ArrayLike<unknown>): unknown[] {
  return Array.from(
    row,
    (v) => typeof v === "number" && !Number.isFinite(v) && !isNaN(v) ? null : v,
  );
}

export { valueAsBoolean };
