/**
 * `_shape=` and the other JSON row modifiers (API-DETAILS §2.2): `objects`, `arrays`, `array`,
 * `arrayfirst`, `object`; `_json=col` and `_json_infinity`. The JSON text itself is written by
 * `json.ts`, the response by `json_response.ts`.
 *
 * Note for renderers: `object` (and row objects) are plain JS objects, so integer-like keys
 * (`"1"`, `"2"`) iterate in numeric order whatever the row order was.
 *
 * @module
 */

import { BadRequest } from "../http/errors.ts";
import { tilde_encode as tildeEncode } from "../util/tilde.ts";
import { objectMembers } from "../util/json_rows.ts";

/** `_shape`, `_json_infinity`: read by `src/table/json_args.ts`, re-exported for renderers. */
export { keepInfinity, parseShape, type Shape } from "../table/json_args.ts";
import type { Shape } from "../table/json_args.ts";

/** See `src/util/json_rows.ts`: distinct names at their first position, last value wins. */
export { objectMembers };

/** Rows as `{column: value}` objects (the last of duplicate column names wins, as in Python). */
export function rowObjects(
  columns: string[],
  rows: ArrayLike<unknown>[],
): Record<string, unknown>[] {
  const members = objectMembers(columns);
  return rows.map((row) => {
    const object: Record<string, unknown> = {};
    for (const [column, i] of members) object[column] = row[i];
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

/**
 * The `rows` part of the body in the chosen shape: `objects`/`array` give row objects, `arrays`
 * lists, `arrayfirst` the first column's values, `object` a record keyed by {@link pkString}.
 * `primaryKeys` is null for queries (`_shape=object` is then an error) and `[]` for views and
 * tables keyed by rowid only.
 */
export function shapedRows(
  shape: Shape,
  columns: string[],
  rows: unknown[][],
  primaryKeys: string[] | null,
): unknown {
  switch (shape) {
    case "arrays":
      return rows;
    case "arrayfirst":
      return rows.map((row) => row[0]);
    case "objects":
    case "array":
      return rowObjects(columns, rows);
    case "object": {
      if (primaryKeys === null) {
        throw new BadRequest("_shape=object is only available on tables");
      }
      if (primaryKeys.length === 0) {
        throw new BadRequest("_shape=object not available for tables with no primary keys");
      }
      const keyed: Record<string, unknown> = {};
      for (const row of rowObjects(columns, rows)) keyed[pkString(row, primaryKeys)] = row;
      return keyed;
    }
  }
}

/** Rows with the `_json=` columns' text parsed into JSON (text that is not JSON is kept). */
export function parseJsonColumns(
  columns: string[],
  rows: unknown[][],
  names: string[],
): unknown[][] {
  const indexes = columns.flatMap((c, i) => names.includes(c) ? [i] : []);
  if (indexes.length === 0) return rows;
  return rows.map((row) => {
    const out = [...row];
    for (const i of indexes) {
      if (typeof out[i] !== "string") continue;
      try {
        out[i] = JSON.parse(out[i] as string);
      } catch {
        // Not JSON: the text stays as it is.
      }
    }
    return out;
  });
}
