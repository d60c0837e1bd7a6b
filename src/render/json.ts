/**
 * JSON text of data pages (API-DETAILS §2.2): bodies with `_json_infinity`, REAL columns' `12.0`,
 * and the newline-delimited form of `_shape=array&_nl=on`, whose lines use Python's `json.dumps`
 * spacing (`{"a": 1, "b": 2}`) as the reference does. The rows' shapes are `json_shapes.ts`.
 *
 * @module
 */

import { jsonText } from "../http/json_text.ts";
import { encodeBase64 } from "../http/base64.ts";
import { objectMembers } from "./json_shapes.ts";

/** Declared column types, used to print a REAL column's `12` as `12.0`. */
export type ColumnTypes = Record<string, string | null | undefined>;

const REAL_TYPE = /REAL|FLOA|DOUB/i;

/** True when `value` should print with a trailing `.0` (an integral number in a REAL column). */
export function isIntegralReal(value: unknown, declared: string | null | undefined): boolean {
  return typeof value === "number" && Number.isInteger(value) &&
    REAL_TYPE.test(declared ?? "");
}

/** Python's text of an integral float: `12.0`, or `1e+16` from 10^16 up. */
export function integralRealText(value: number): string {
  return Math.abs(value) < 1e16 ? `${value}.0` : value.toExponential();
}

const REAL_MARK = "\u0000vitrine-real\u0000";
const REAL_MARK_JSON = /"\\u0000vitrine-real\\u0000([^"\\]*)"/g;

/**
 * Rows whose integral numbers in REAL-declared columns (except `skip`, e.g. primary keys that
 * become `_shape=object` keys) are marked so `jsonBodyText` writes them as Python does (`12.0`).
 */
export function markIntegralReals(
  columns: string[],
  rows: unknown[][],
  types: ColumnTypes = {},
  skip: string[] = [],
): unknown[][] {
  const real = columns.flatMap((c, i) =>
    REAL_TYPE.test(types[c] ?? "") && !skip.includes(c) ? [i] : []
  );
  if (real.length === 0) return rows;
  return rows.map((row) => {
    const out = [...row];
    for (const i of real) {
      const value = out[i];
      if (typeof value === "number" && Number.isInteger(value)) {
        out[i] = `${REAL_MARK}${integralRealText(value)}`;
      }
    }
    return out;
  });
}

/**
 * One row as a Python `json.dumps` object line (duplicate names: the last value wins);
 * `infinity` keeps `Infinity` / `-Infinity` (`_json_infinity=on`), else they are `null`.
 */
export function pythonJsonObject(
  members: [string, number][],
  row: ArrayLike<unknown>,
  types: ColumnTypes = {},
  infinity = false,
): string {
  const parts = members.map(([column, i]) =>
    `${JSON.stringify(column)}: ${pythonJson(row[i], types[column], infinity)}`
  );
  return `{${parts.join(", ")}}`;
}

const INFINITY_MARK = "\u0000vitrine-infinity\u0000";

/**
 * JSON text of `value`. Non-finite numbers become null unless `keepInfinity` (then they are
 * written as the bare `Infinity` / `-Infinity` Python emits).
 */
export function jsonBodyText(value: unknown, keepInfinity = false): string {
  let text = jsonText(keepInfinity ? markInfinities(value) : value);
  // Match the marks as jsonText writes them (it escapes the NUL characters).
  if (keepInfinity) {
    text = text.replaceAll(jsonText(`${INFINITY_MARK}+`), "Infinity")
      .replaceAll(jsonText(`${INFINITY_MARK}-`), "-Infinity");
  }
  return text.includes("vitrine-real") ? text.replace(REAL_MARK_JSON, "$1") : text;
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

/**
 * Python `json.dumps` text of one value: `", "` and `": "` separators, REAL floats as `x.0`;
 * non-finite numbers are `null` unless `infinity` (then `Infinity` / `-Infinity`).
 */
function pythonJson(value: unknown, declared?: string | null, infinity = false): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "null";
    if (!Number.isFinite(value)) return infinity ? (value > 0 ? "Infinity" : "-Infinity") : "null";
    return isIntegralReal(value, declared) ? integralRealText(value) : JSON.stringify(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Uint8Array) {
    return pythonJson({ $base64: true, encoded: encodeBase64(value) });
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => pythonJson(item, null, infinity)).join(", ")}]`;
  }
  const members = Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item, null, infinity)}`);
  return `{${members.join(", ")}}`;
}

/** One line per row object, Python spacing, for `_shape=array&_nl=on` (`infinity` as above). */
export function newlineDelimited(
  columns: string[],
  rows: unknown[][],
  types: ColumnTypes = {},
  infinity = false,
): string {
  const members = objectMembers(columns);
  return rows.map((row) => pythonJsonObject(members, row, types, infinity)).join("\n");
}
