/**
 * How a row's values are kept in the history: a JSON object of column → value written as the
 * JSON API writes cells (integers beyond ±2^53 exact, a REAL `12.0` as `12.0`, BLOBs as
 * `{"$base64": true, "encoded": …}`), and read back with each value's storage class intact, so
 * that a revert writes back exactly what was there.
 *
 * @module
 */

import type { Cell } from "../../sqlite/preupdate.ts";
import type { SqlValue } from "../../sqlite/values.ts";
import { cellJson } from "../../util/json_rows.ts";

/** A row as history keeps it: recorded column names with their cells, in table order. */
export type HistoryRow = [string, Cell][];

/** JSON object text of `row`. */
export function rowJson(row: HistoryRow): string {
  return `{${
    row.map(([name, cell]) => `${JSON.stringify(name)}:${cellJson(cell.value, cell.real, false)}`)
      .join(",")
  }}`;
}

/**
 * The row in a history JSON object, with storage classes: a number written with a point or an
 * exponent was REAL, an integer too large for a double comes back as a bigint, and a `$base64`
 * object is a BLOB again.
 */
export function parseRow(text: string): HistoryRow {
  const reals = new Set<string>();
  const parsed = JSON.parse(text, function (key, value, context?: { source?: string }) {
    if (typeof value === "number" && context?.source !== undefined && this !== null) {
      const source = context.source;
      if (/[.eE]/.test(source)) reals.add(key);
      else if (!Number.isSafeInteger(value)) return BigInt(source);
    }
    return value;
  }) as Record<string, unknown>;
  return Object.entries(parsed).map(([name, value]) => [name, {
    value: cellValue(value),
    real: reals.has(name),
  }]);
}

function cellValue(value: unknown): SqlValue {
  if (value === null || typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "bigint") return value;
  if (typeof value === "object" && (value as { $base64?: unknown }).$base64 === true) {
    return Uint8Array.fromBase64(String((value as { encoded?: unknown }).encoded ?? ""));
  }
  // Nothing history writes; kept as text rather than lost.
  return JSON.stringify(value);
}

/** The plain values of a history JSON object, for pages and the JSON API (BLOBs as objects). */
export function plainRow(text: string | null): Record<string, unknown> | null {
  return text === null ? null : JSON.parse(text);
}
