/**
 * PostgreSQL values as Vitrine's pages and JSON show them, close to what the same data in a
 * SQLite file gives (docs/postgres.md lists the differences):
 * - `smallint`, `integer`, `real`, `double precision`: numbers; `bigint`: a number, or a
 *   `bigint` outside ±2^53 (as SQLite's big integers); `numeric`: a number when it is finite,
 *   else its text (`NaN`), so sums and averages read as numbers as SQLite's do;
 * - `boolean`: 1 or 0 (SQLite has no booleans: its files hold 1/0);
 * - dates, times, timestamps and intervals: PostgreSQL's ISO text (`2024-01-02`,
 *   `2024-01-02 03:04:05+00`; sessions use `DateStyle=ISO` and the UTC time zone);
 * - `json`/`jsonb`: their JSON text, as a SQLite JSON column holds it;
 * - arrays: JSON text (`[1,2]`), so array facets read them as JSON arrays;
 * - `bytea`: bytes (a BLOB); everything else: PostgreSQL's text.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";

const asText = (text: string) => text;

/** An `int8` as a number while exact, else a `bigint`. */
function parseInt8(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/** A `numeric`: a number when finite, else the text (`NaN`, `Infinity` stay words). */
function parseNumeric(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** Hex `bytea` output (`\x0102`) as bytes. */
function parseBytea(text: string): Uint8Array {
  const hex = text.startsWith("\\x") ? text.slice(2) : text;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * The driver's type table (`postgres`'s `types` option): each entry replaces its parser for the
 * listed type OIDs; array types get the element parser and are written as JSON text later
 * ({@link pgCell}).
 */
export const PG_TYPES = {
  int: { to: 0, from: [21, 23, 26], serialize: (x: unknown) => String(x), parse: Number },
  float: { to: 0, from: [700, 701], serialize: (x: unknown) => String(x), parse: Number },
  int8: { to: 0, from: [20], serialize: (x: unknown) => String(x), parse: parseInt8 },
  numeric: { to: 0, from: [1700], serialize: (x: unknown) => String(x), parse: parseNumeric },
  bool: {
    to: 0,
    from: [16],
    serialize: (x: unknown) => String(x),
    parse: (x: string) => x === "t" ? 1 : 0,
  },
  json: { to: 0, from: [114, 3802], serialize: (x: unknown) => String(x), parse: asText },
  // date, time, timestamp, timestamptz, interval, timetz: the server's ISO text.
  time: {
    to: 0,
    from: [1082, 1083, 1114, 1184, 1186, 1266],
    serialize: (x: unknown) => String(x),
    parse: asText,
  },
  bytea: { to: 17, from: [17], serialize: serializeBytea, parse: parseBytea },
};

function serializeBytea(x: unknown): string {
  const bytes = x instanceof Uint8Array ? x : new TextEncoder().encode(String(x));
  let hex = "\\x";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** One cell as a Vitrine value: arrays (parsed by the driver) become JSON text. */
export function pgCell(value: unknown): SqlValue {
  if (value === undefined) return null;
  if (Array.isArray(value)) return JSON.stringify(value, jsonSafe);
  return value as SqlValue;
}

/**
 * Indexes of a result's array columns (the driver's column descriptions: the driver parses the
 * arrays of the types it knows into JavaScript arrays, and marks those parsers `array`).
 */
export function pgArrayColumns(
  columns: readonly { parser?: { array?: boolean } }[] | undefined,
): number[] {
  const arrays: number[] = [];
  (columns ?? []).forEach((column, i) => {
    if (column.parser?.array === true) arrays.push(i);
  });
  return arrays;
}

/**
 * A row of the driver's (its `values()` mode) as Vitrine's, changed in place: the cells of the
 * `arrays` columns as JSON text ({@link pgCell}). Why in place, and only those: an export
 * converts every row it sends, and a new array per row was garbage to collect for each of
 * millions of rows.
 */
export function pgArraysInPlace(row: unknown[], arrays: readonly number[]): SqlValue[] {
  for (const i of arrays) row[i] = pgCell(row[i]);
  return row as SqlValue[];
}

/** Type OIDs of `real` (float4) and `double precision` (float8). */
const FLOAT_TYPES = new Set([700, 701]);

/**
 * Indexes of the `real` and `double precision` columns of a result (the driver's column
 * descriptions): their whole numbers print as `7.0`, as a SQLite REAL does, whichever page or
 * query reads them (SQLite tells by the values it stores: `Results.real_columns`).
 */
export function pgRealColumns(columns: readonly { type?: number }[] | undefined): number[] {
  const real: number[] = [];
  (columns ?? []).forEach((column, i) => {
    if (FLOAT_TYPES.has(column.type ?? 0)) real.push(i);
  });
  return real;
}

/** JSON for array elements: big integers as exact numbers, bytes as hex. */
function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array) return serializeBytea(value);
  return value;
}

/** A value bound as a parameter: booleans as 1/0 would not compare with PostgreSQL booleans. */
export function pgParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return value;
}
