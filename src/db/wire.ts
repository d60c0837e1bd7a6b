/**
 * Result rows as JSON text, the cheapest way across a worker boundary (see deno-tech.md §2).
 * JSON cannot hold BLOBs, integers beyond ±2^53, non-finite floats or -0, so those cells travel
 * as tagged objects — `{"$int": "9007199254740993"}`, `{"$blob": "<base64>"}`,
 * `{"$float": "Infinity"}`, `{"$float": "-0"}` — and come back as bigint, Uint8Array and number,
 * so that a worker's answer equals the main thread's (`num_sql_threads` 0).
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";

type Tagged = { $int: string } | { $blob: string } | { $float: string };

function needsTag(value: SqlValue): boolean {
  if (typeof value === "number") return !Number.isFinite(value) || Object.is(value, -0);
  return typeof value === "bigint" || value instanceof Uint8Array;
}

function tag(value: SqlValue): SqlValue | Tagged {
  if (typeof value === "bigint") return { $int: value.toString() };
  if (value instanceof Uint8Array) return { $blob: value.toBase64() };
  if (typeof value === "number" && needsTag(value)) {
    return { $float: Object.is(value, -0) ? "-0" : String(value) };
  }
  return value;
}

function untag(value: Tagged): SqlValue {
  if ("$int" in value) return BigInt(value.$int);
  if ("$blob" in value) return Uint8Array.fromBase64(value.$blob);
  return Number(value.$float);
}

/** Rows as JSON text; `tagged` says whether any cell needed a tag. */
export function encodeRows(rows: SqlValue[][]): { json: string; tagged: boolean } {
  let tagged = false;
  for (const row of rows) {
    for (const value of row) {
      if (needsTag(value)) {
        tagged = true;
        break;
      }
    }
    if (tagged) break;
  }
  return { json: JSON.stringify(tagged ? rows.map((row) => row.map(tag)) : rows), tagged };
}

/** Parses {@link encodeRows}'s text back into values (restoring tagged cells). */
export function decodeRows(json: string, tagged: boolean): SqlValue[][] {
  const rows = JSON.parse(json) as SqlValue[][];
  if (!tagged) return rows;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i] as unknown;
      if (value !== null && typeof value === "object") row[i] = untag(value as Tagged);
    }
  }
  return rows;
}
