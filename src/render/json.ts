/**
 * JSON bodies of data pages (API-DETAILS §2.2): rows in every `_shape`, `_json=col` parsing,
 * `_json_infinity`, and the newline-delimited form of `_shape=array&_nl=on`, whose lines use
 * Python's `json.dumps` spacing (`{"a": 1, "b": 2}`) as the reference does.
 *
 * @module
 */

import { json_text } from "../http/json_text.ts";
import { encodeBase64 } from "../http/base64.ts";
import { TableArgsError } from "../table/errors.ts";
import { pkString, type Shape } from "../table/shapes.ts";

/** Declared column types, used to print a REAL column's `12` as `12.0`. */
export type ColumnTypes = Record<string, string | null | undefined>;

const REAL_TYPE = /REAL|FLOA|DOUB/i;

/** True when `value` should print with a trailing `.0` (an integral number in a REAL column). */
export function isIntegralReal(value: unknown, declared: string | null | undefined): boolean {
  return typeof value === "number" && Number.isInteger(value) &&
    REAL_TYPE.test(declared ?? "");
}

/**
 * The members of a row object: each distinct column name once, at its first position, with the
 * index of its last occurrence — Python's `dict(zip(columns, row))`, so `select 1 as a, 2 as a`
 * gives `{"a": 2}` as in the reference.
 */
export function objectMembers(columns: string[]): [string, number][] {
  const last = new Map<string, number>();
  columns.forEach((column, i) => last.set(column, i));
  return [...last];
}

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

/**
 * The `rows` part of the body in the chosen shape. `primaryKeys` is null for queries and views
 * (`_shape=object` is then an error) and `[]` for tables keyed by rowid only.
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
        throw new TableArgsError("_shape=object is only available on tables");
      }
      if (primaryKeys.length === 0) {
        throw new TableArgsError("_shape=object not available for tables with no primary keys");
      }
      const keyed: Record<string, unknown> = {};
      for (const row of rowObjects(columns, rows)) keyed[pkString(row, primaryKeys)] = row;
      return keyed;
    }
  }
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
