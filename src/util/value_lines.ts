/**
 * CSV, TSV and NDJSON lines written from rows of values straight into bytes: {@link textRows}'s
 * text, exactly (a test compares them), without making a string of each field, line and chunk and
 * encoding the chunk again. A PostgreSQL export's rows come from the driver as values on the main
 * thread (`db/postgres_cursor.ts`); written this way, their lines cost less than half as much
 * and leave no garbage but the bytes.
 *
 * @module
 */

import { csvCell, type TextRowsOptions } from "./text_rows.ts";
import { cellJson, objectPrefixes } from "./json_rows.ts";
import { writeDigits } from "./digits.ts";

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const COMMA = 0x2c;
const TAB = 0x09;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

const encoder = new TextEncoder();

/** Bytes kept free at the end of the buffer before each field (numbers and short text). */
const ROOM = 64;

/** The size of the last chunk written, for the next one's first buffer (chunks are alike). */
let lastBytes = 64 * 1024;

/** A growing byte buffer; `at` is where the next byte goes. */
class Bytes {
  out = new Uint8Array(lastBytes + (lastBytes >> 3));
  at = 0;

  /** Makes room for `more` bytes past `at`. */
  reserve(more: number): void {
    if (this.out.length - this.at >= more) return;
    const bigger = new Uint8Array(Math.max(this.out.length * 2, this.at + more + (more >> 1)));
    bigger.set(this.out.subarray(0, this.at));
    this.out = bigger;
  }

  /** Text known to be ASCII (numbers' texts). */
  ascii(text: string): void {
    this.reserve(text.length);
    const out = this.out;
    let at = this.at;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** Any text, as UTF-8 (a lone surrogate as U+FFFD, as `TextEncoder` writes it). */
  text(text: string): void {
    this.reserve(text.length * 3);
    this.at += encoder.encodeInto(text, this.out.subarray(this.at)).written;
  }

  /** An integer of at most 31 bits, its digits written without a string. */
  smallInteger(value: number): void {
    this.at = writeDigits(this.out, this.at, value);
  }
}

/**
 * The first `options.limit` rows as CSV, TSV or NDJSON lines (`options.format`), or null when a
 * CSV or TSV cell is one lines cannot hold (a BLOB: its text depends on the page) — as
 * {@link textRows} answers.
 */
export function valueLines(
  columns: string[],
  rows: readonly unknown[][],
  options: TextRowsOptions,
): Uint8Array | null {
  if (options.format === "ndjson") return ndjsonLines(columns, rows, options);
  const count = Math.min(rows.length, options.limit);
  const delimiter = options.format === "tsv" ? TAB : COMMA;
  const realSet = new Set(options.real);
  const real = columns.map((_, i) => realSet.has(i));
  const width = columns.length;
  const w = new Bytes();
  for (let r = 0; r < count; r++) {
    const row = rows[r];
    const lineStart = w.at;
    for (let c = 0; c < width; c++) {
      w.reserve(ROOM);
      if (c > 0) w.out[w.at++] = delimiter;
      const value = row[c];
      if (typeof value === "string") field(w, value, delimiter);
      else if (typeof value === "number" && (value | 0) === value && !real[c]) {
        w.smallInteger(value);
      } else if (value !== null && value !== undefined) {
        const text = csvCell(value, real[c]);
        if (text === null) return null;
        w.ascii(text);
      }
    }
    w.reserve(ROOM);
    // Python writes a lone empty field as `""` so the line is not mistaken for a blank one.
    if (width === 1 && w.at === lineStart) w.ascii('""');
    w.out[w.at++] = CR;
    w.out[w.at++] = LF;
  }
  lastBytes = Math.max(64 * 1024, w.at);
  return w.out.subarray(0, w.at);
}

/**
 * One text field: its characters copied while they are ASCII and need no quotes (most fields);
 * otherwise written again, quoted when it holds the delimiter, a quote or a line break.
 */
function field(w: Bytes, text: string, delimiter: number): void {
  w.reserve(text.length);
  const out = w.out;
  const start = w.at;
  let at = start;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80 || code === delimiter || code === QUOTE || code === CR || code === LF) {
      w.at = start;
      const quoted = text.includes(delimiter === TAB ? "\t" : ",") || /["\r\n]/.test(text);
      w.text(quoted ? `"${text.replaceAll('"', '""')}"` : text);
      return;
    }
    out[at++] = code;
  }
  w.at = at;
}

/**
 * NDJSON lines (`json_rows.ts`'s `ndjsonLines`): one compact object per row, each member's
 * `{"name":` or `,"name":` encoded once, ASCII text copied as it is read.
 */
function ndjsonLines(
  columns: string[],
  rows: readonly unknown[][],
  options: TextRowsOptions,
): Uint8Array {
  const count = Math.min(rows.length, options.limit);
  const { before, indexes } = objectPrefixes(columns);
  const prefixes = before.map((text) => encoder.encode(text));
  const realSet = new Set(options.real);
  const real = indexes.map((i) => realSet.has(i));
  const w = new Bytes();
  for (let r = 0; r < count; r++) {
    const row = rows[r];
    if (!indexes.length) w.ascii("{}");
    for (let k = 0; k < indexes.length; k++) {
      // Copied byte by byte: `set` costs more than the few bytes of a member's name.
      const prefix = prefixes[k];
      w.reserve(prefix.length + ROOM);
      const out = w.out;
      let at = w.at;
      for (let i = 0; i < prefix.length; i++) out[at++] = prefix[i];
      w.at = at;
      const value = row[indexes[k]];
      if (typeof value === "string") jsonString(w, value);
      else if (typeof value === "number" && (value | 0) === value && !real[k]) {
        w.smallInteger(value);
      } else if (value === null || value === undefined) w.ascii("null");
      else w.ascii(cellJson(value, real[k], false));
    }
    w.reserve(2);
    if (indexes.length) w.out[w.at++] = CLOSE_BRACE;
    w.out[w.at++] = LF;
  }
  lastBytes = Math.max(64 * 1024, w.at);
  return w.out.subarray(0, w.at);
}

/**
 * A JSON string: its characters copied while they are ASCII and need no escape (most text);
 * otherwise written again as `JSON.stringify` writes it.
 */
function jsonString(w: Bytes, text: string): void {
  w.reserve(text.length + 2);
  const out = w.out;
  const start = w.at;
  let at = start;
  out[at++] = QUOTE;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code >= 0x80 || code === QUOTE || code === BACKSLASH) {
      w.at = start;
      w.text(JSON.stringify(text));
      return;
    }
    out[at++] = code;
  }
  out[at++] = QUOTE;
  w.at = at;
}
