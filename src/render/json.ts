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
import { integralRealText } from "../util/json_rows.ts";

/** Declared column types, used to print a REAL column's `12` as `12.0`. */
export type ColumnTypes = Record<string, string | null | undefined>;

const REAL_TYPE = /REAL|FLOA|DOUB/i;

/** True when `value` should print with a trailing `.0` (an integral number in a REAL column). */
export function isIntegralReal(value: unknown, declared: string | null | undefined): boolean {
  return typeof value === "number" && Number.isInteger(value) &&
    REAL_TYPE.test(declared ?? "");
}

export { integralRealText };

/** Indexes of the REAL-declared columns whose integral values print as `12.0` (minus `skip`). */
export function realColumnIndexes(
  columns: string[],
  types: ColumnTypes = {},
  skip: string[] = [],
): number[] {
  return columns.flatMap((c, i) => REAL_TYPE.test(types[c] ?? "") && !skip.includes(c) ? [i] : []);
}

/**
 * `{column: "REAL"}` for the columns at `real` (indexes into `columns`): those whose numbers were
 * all stored as REAL (`Results.real_columns`), whatever their declared type.
 */
export function realColumnTypes(columns: string[], real: number[]): Record<string, string> {
  const types: Record<string, string> = {};
  for (const i of real) types[columns[i]] = "REAL";
  return types;
}

/**
 * Text that is already JSON (rows written by `rowsJson`, possibly in a read worker): as the whole
 * body or as a member of the top-level object, `jsonBodyText` writes it as it is.
 */
export class RawJson {
  /** JSON text, or its UTF-8 bytes. */
  constructor(readonly text: string | Uint8Array) {}
}

const utf8 = new TextEncoder();

/**
 * {@link jsonBodyText}, but a {@link RawJson} given as bytes stays bytes: the body is then the
 * text around it, encoded, joined to those bytes without decoding them.
 */
export function jsonBody(value: unknown, keepInfinity = false): string | Uint8Array {
  const raws = rawMembers(value);
  if (!raws.some((raw) => raw instanceof Uint8Array)) return jsonBodyText(value, keepInfinity);
  if (value instanceof RawJson) return value.text;
  // Cut the text at the raw members' marks and put the bytes in between.
  const pieces: Uint8Array[] = [];
  const values = Object.entries(value as Record<string, unknown>).map(([key, member]) => {
    if (member instanceof RawJson && member.text instanceof Uint8Array) {
      pieces.push(member.text);
      return [key, `${BYTES_MARK}${pieces.length - 1}`];
    }
    return [key, member];
  });
  const text = jsonBodyText(Object.fromEntries(values), keepInfinity);
  const parts: Uint8Array[] = [];
  let from = 0;
  pieces.forEach((bytes, i) => {
    const mark = jsonText(`${BYTES_MARK}${i}`);
    const at = text.indexOf(mark, from);
    parts.push(utf8.encode(text.slice(from, at)), bytes);
    from = at + mark.length;
  });
  parts.push(utf8.encode(text.slice(from)));
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}

/** The RawJson texts of `value` itself or of its top-level members. */
function rawMembers(value: unknown): (string | Uint8Array)[] {
  if (value instanceof RawJson) return [value.text];
  if (!value || typeof value !== "object" || Array.isArray(value)) return [];
  const out: (string | Uint8Array)[] = [];
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (member instanceof RawJson) out.push(member.text);
  }
  return out;
}

const BYTES_MARK = "\u0000vitrine-bytes\u0000";

const rawText = (raw: RawJson) =>
  typeof raw.text === "string" ? raw.text : new TextDecoder().decode(raw.text);

const RAW_MARK = "\u0000vitrine-raw\u0000";

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
function pythonJsonObject(
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
  if (value instanceof RawJson) return rawText(value);
  if (!keepInfinity && hasRawMember(value)) return membersText(value as Record<string, unknown>);
  const raws: string[] = [];
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const members = Object.entries(value);
    if (members.some(([, member]) => member instanceof RawJson)) {
      value = Object.fromEntries(members.map(([key, member]) => {
        if (!(member instanceof RawJson)) return [key, member];
        raws.push(rawText(member));
        return [key, `${RAW_MARK}${raws.length - 1}`];
      }));
    }
  }
  let text = jsonText(keepInfinity ? markInfinities(value) : value);
  // Match the marks as jsonText writes them (it escapes the NUL characters).
  if (keepInfinity) {
    text = text.replaceAll(jsonText(`${INFINITY_MARK}+`), "Infinity")
      .replaceAll(jsonText(`${INFINITY_MARK}-`), "-Infinity");
  }
  if (text.includes("vitrine-real")) text = text.replace(REAL_MARK_JSON, "$1");
  // Last, so that nothing above rewrites text inside the rows.
  for (let i = 0; i < raws.length; i++) {
    const mark = jsonText(`${RAW_MARK}${i}`);
    const at = text.indexOf(mark);
    text = text.slice(0, at) + raws[i] + text.slice(at + mark.length);
  }
  return text;
}

/** True for a plain object with a RawJson member (a JSON page around rows already written). */
function hasRawMember(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  for (const key of Object.keys(value)) {
    if ((value as Record<string, unknown>)[key] instanceof RawJson) return true;
  }
  return false;
}

/**
 * The object written member by member, as JSON.stringify would order and skip them: RawJson
 * members as they are, the others through {@link jsonText}. Marking the raw members and cutting
 * the marks out again cost more than the rest of a row page's JSON.
 */
function membersText(value: Record<string, unknown>): string {
  let text = "{";
  for (const key of Object.keys(value)) {
    const member = value[key];
    let part: string;
    if (member instanceof RawJson) part = rawText(member);
    else if (member === undefined || typeof member === "function" || typeof member === "symbol") {
      continue;
    } else {
      part = jsonText(member);
      if (part.includes("vitrine-real")) part = part.replace(REAL_MARK_JSON, "$1");
    }
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${part}`;
  }
  return text + "}";
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
