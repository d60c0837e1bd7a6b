/**
 * JSON text of result rows, written straight from the value arrays: no row objects, no second
 * pass. The read workers use it to send a JSON page's rows as finished bytes, and the main thread
 * for rows it already holds. Cells follow the API's rules (API-DETAILS §2.2): integers beyond
 * ±2^53 are exact JSON numbers, integral values of REAL columns print as Python floats (`12.0`),
 * BLOBs are `{"$base64": true, "encoded": "…"}`, and NaN/±Infinity are null unless `infinity`
 * keeps ±Infinity as bare `Infinity` / `-Infinity`.
 *
 * @module
 */

import { numberText } from "./number_text.ts";

/** The row shapes written here (the others are built from these by the views). */
export type RowsShape = "objects" | "arrays";

/** Options of {@link rowsJson}. */
export interface RowsJsonOptions {
  shape: RowsShape;
  /** Indexes of REAL columns, whose integral numbers print as `12.0`. */
  real?: number[];
  /** Keep ±Infinity (`_json_infinity=on`); NaN is always null. */
  infinity?: boolean;
  /** Write only the first `limit` rows. */
  limit?: number;
}

/** Python's text of an integral float: `12.0`, or `1e+16` from 10^16 up. */
export function integralRealText(value: number): string {
  return Math.abs(value) < 1e16 ? `${numberText(value)}.0` : value.toExponential();
}

/**
 * JSON text of one cell; `real` says the column is REAL. Only SQLite's value types are handled
 * here: anything else (objects from `_json=`, labels) goes through the caller's own writer.
 */
export function cellJson(value: unknown, real: boolean, infinity: boolean): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (Number.isFinite(value)) {
        return real && Number.isInteger(value) ? integralRealText(value) : numberText(value);
      }
      if (infinity && !Number.isNaN(value)) return value > 0 ? "Infinity" : "-Infinity";
      return "null";
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
  }
  if (value instanceof Uint8Array) {
    return `{"$base64":true,"encoded":${JSON.stringify(value.toBase64())}}`;
  }
  return "null";
}

/** True when every cell is a value {@link cellJson} writes (no objects but BLOBs). */
export function plainCells(rows: readonly unknown[][]): boolean {
  for (const row of rows) {
    for (const cell of row) {
      if (typeof cell === "object" && cell !== null && !(cell instanceof Uint8Array)) return false;
    }
  }
  return true;
}

/**
 * The members of a row object: each distinct column name once, at its first position, with the
 * index of its last occurrence (Python's `dict(zip(columns, row))`).
 */
export function objectMembers(columns: string[]): [string, number][] {
  const last = new Map<string, number>();
  columns.forEach((column, i) => last.set(column, i));
  return [...last];
}

/** How rows of one column list are written: which cells, and the text before each. */
interface RowPlan {
  indexes: number[];
  real: boolean[];
  before: string[];
  close: string;
  empty: string;
}

/** Plans by shape, REAL columns and column names: a row page writes the same plan each time. */
const plans = new Map<string, RowPlan>();
const PLANS_KEPT = 256;

function rowPlan(columns: string[], options: RowsJsonOptions): RowPlan {
  const key = `${options.shape}\u0001${options.real?.join(",") ?? ""}\u0001${
    columns.join("\u0000")
  }`;
  let plan = plans.get(key);
  if (plan) return plan;
  const realSet = new Set(options.real ?? []);
  const members = options.shape === "objects"
    ? objectMembers(columns)
    : columns.map((c, i) => [c, i] as [string, number]);
  const indexes = members.map(([, i]) => i);
  plan = {
    indexes,
    real: indexes.map((i) => realSet.has(i)),
    // Text before each cell: `{"a":` then `,"b":` for objects, `[` then `,` for arrays.
    before: options.shape === "objects"
      ? members.map(([name], k) => `${k === 0 ? "{" : ","}${JSON.stringify(name)}:`)
      : members.map((_, k) => (k === 0 ? "[" : ",")),
    close: options.shape === "objects" ? "}" : "]",
    empty: options.shape === "objects" ? "{}" : "[]",
  };
  if (plans.size >= PLANS_KEPT) plans.delete(plans.keys().next().value!);
  plans.set(key, plan);
  return plan;
}

/**
 * The text before each member of a row object (`{"a":`, then `,"b":`) and the index of its cell:
 * the NDJSON writers of the read workers (`text_rows.ts`, `cell_lines.ts`) write the same members.
 */
export function objectPrefixes(columns: string[]): { before: string[]; indexes: number[] } {
  const { before, indexes } = rowPlan(columns, { shape: "objects" });
  return { before, indexes };
}

/**
 * `.ndjson` lines: one compact object per row, each ending in `\n`, like the read workers'
 * lines. (`_shape=array&_nl=on` keeps the reference's Python spacing instead: render/json.ts.)
 */
export function ndjsonLines(columns: string[], rows: readonly unknown[][], real: number[]): string {
  const { indexes, real: isReal, before, close, empty } = rowPlan(columns, {
    shape: "objects",
    real,
  });
  let text = "";
  for (const row of rows) text += `${rowText(row, indexes, isReal, before, close, empty, false)}\n`;
  return text;
}

/** The JSON array of `rows` in `shape`, as text. */
export function rowsJson(
  columns: string[],
  rows: readonly unknown[][],
  options: RowsJsonOptions,
): string {
  const count = Math.min(rows.length, options.limit ?? Infinity);
  if (count === 0) return "[]";
  const infinity = options.infinity ?? false;
  const { indexes, real, before, close, empty } = rowPlan(columns, options);
  if (count === 1) return `[${rowText(rows[0], indexes, real, before, close, empty, infinity)}]`;
  const parts = new Array<string>(count);
  for (let r = 0; r < count; r++) {
    parts[r] = rowText(rows[r], indexes, real, before, close, empty, infinity);
  }
  return `[${parts.join(",")}]`;
}

function rowText(
  row: readonly unknown[],
  indexes: number[],
  real: boolean[],
  before: string[],
  close: string,
  empty: string,
  infinity: boolean,
): string {
  if (indexes.length === 0) return empty;
  let text = "";
  for (let k = 0; k < indexes.length; k++) {
    text += before[k] + cellJson(row[indexes[k]], real[k], infinity);
  }
  return text + close;
}
