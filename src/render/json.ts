/**
 * JSON text of data pages (API-DETAILS §2.2): bodies with `_json_infinity`, REAL columns' `12.0`,
 * and the newline-delimited form of `_shape=array&_nl=on`, whose lines use Python's `json.dumps`
 * spacing (`{"a": 1, "b": 2}`) as the reference does. The rows' shapes are `src/table/shapes.ts`.
 *
 * @module
 */

import { json_text } from "../http/json_text.ts";
import { encodeBase64 } from "../http/base64.ts";
import { objectMembers } from "../table/shapes.ts";

/** Declared column types, used to print a REAL column's `12` as `12.0`. */
export type ColumnTypes = Record<string, string | null | undefined>;

const REAL_TYPE = /REAL|FLOA|DOUB/i;

/** True when `value` should print with a trailing `.0` (an integral number in a REAL column). */
export function isIntegralReal(value: unknown, declared: string | null | undefined): boolean {
  return typeof value === "number" && Number.isInteger(value) &&
    REAL_TYPE.test(declared ?? "");
}

/** One row as a Python `json.dumps` object line (duplicate names: the last value wins). */
export function pythonJsonObject(
  members: [string, number][],
  row: ArrayLike<unknown>,
  types: ColumnTypes = {},
): string {
  const parts = members.map(([column, i]) =>
    `${JSON.stringify(column)}: ${pythonJson(row[i], types[column])}`
  );
  return `{${parts.join(", ")}}`;
}

const INFINITY_MARK = "\u0000vitrine-infinity\u0000";

/**
 * JSON text of `value`. Non-finite numbers become null unless `keepInfinity` (then they are
 * written as the bare `Infinity` / `-Infinity` Python emits).
 */
export function jsonBodyText(value: unknown, keepInfinity = false): string {
  if (!keepInfinity) return json_text(value);
  const marked = markInfinities(value);
  return json_text(marked).replaceAll(`"${INFINITY_MARK}+"`, "Infinity")
    .replaceAll(`"${INFINITY_MARK}-"`, "-Infinity");
}

function markInfinities(value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value) && !Number.isNaN(value)) {
    return `${INFINITY_MARK}${value > 0 ? "+" : "-"}`;
  }
  if (Array.isArray(value)) return value.map(markInfinities);
  if (value && typeof value === "object" && value.constructor === Object) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, markInfinities(v)]),
    );
  }
  return value;
}

/** Python `json.dumps` text of one value: `", "` and `": "` separators, REAL floats as `x.0`. */
export function pythonJson(value: unknown, declared?: string | null): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "null";
    return isIntegralReal(value, declared) ? `${value}.0` : JSON.stringify(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Uint8Array) {
    return pythonJson({ $base64: true, encoded: encodeBase64(value) });
  }
  if (Array.isArray(value)) return `[${value.map((item) => pythonJson(item)).join(", ")}]`;
  const members = Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`);
  return `{${members.join(", ")}}`;
}

/** One line per row object, Python spacing, for `_shape=array&_nl=on`. */
export function newlineDelimited(
  columns: string[],
  rows: unknown[][],
  types: ColumnTypes = {},
): string {
  const members = objectMembers(columns);
  return rows.map((row) => pythonJsonObject(members, row, types)).join("\n");
}
