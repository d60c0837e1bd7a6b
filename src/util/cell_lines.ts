/**
 * Export lines written from rows held as flat arrays of cells (`sqlite/cell_batch.ts`), byte by
 * byte: a text cell's UTF-8 is copied from SQLite into one buffer per batch and from there into
 * the lines, without ever becoming a JavaScript string. This is the read workers' path for
 * `_stream=on` exports; making a string of each cell and encoding the lines again was half of an
 * export's time (docs/internals.md, "Exports never make strings of cells").
 *
 * The text is exactly {@link textRows}'s (a test compares them): the same quoting, numbers
 * written by the same functions (`csvCell`, `cellJson`), and text that is not valid UTF-8
 * decoded with U+FFFD as `Statement` reads it.
 *
 * @module
 */

import { cellJson, objectPrefixes } from "./json_rows.ts";
import { csvCell, type TextRowsOptions } from "./text_rows.ts";
import { numberText } from "./number_text.ts";
import { writeDigits } from "./digits.ts";

/** A NULL cell. */
export const CELL_NULL = 0;
/** An INTEGER cell that fits a JavaScript number, in `numbers`. */
export const CELL_INTEGER = 1;
/** A REAL cell, in `numbers`. */
export const CELL_REAL = 2;
/** A TEXT cell, its UTF-8 bytes next in `bytes`. */
export const CELL_TEXT = 3;
/** An INTEGER too big for a number: its decimal digits next in `bytes`. */
export const CELL_DIGITS = 4;

/** Rows of cells, row after row: cell `c` of row `r` is at `r * width + c`. */
export interface Cells {
  readonly width: number;
  readonly rows: number;
  /** One of the `CELL_` kinds per cell. */
  readonly kinds: Uint8Array;
  /** Bytes in `bytes` of each TEXT and DIGITS cell. */
  readonly lengths: Int32Array;
  /** Value of each INTEGER and REAL cell. */
  readonly numbers: Float64Array;
  /** The bytes of the TEXT and DIGITS cells, in cell order. */
  readonly bytes: Uint8Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CR = 0x0d;
const LF = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Where each cell's bytes start in `Cells.bytes`; reused, like {@link scratch}. */
let starts = new Int32Array(0);

/** The lines are written here first; it grows to the largest batch and is reused. */
let scratch = new Uint8Array(64 * 1024);
/** The most {@link scratch} grows to: a batch of longer texts gets a buffer of its own. */
const KEEP_SCRATCH_BYTES = 4 * 1024 * 1024;

/**
 * The first `cells.rows` rows as CSV, TSV or NDJSON lines, in a buffer that the next call
 * overwrites (copy them out first). `options.limit` is not used: every row of `cells` is written.
 */
export function cellLines(cells: Cells, columns: string[], options: TextRowsOptions): Uint8Array {
  const realSet = new Set(options.real);
  const real = columns.map((_, i) => realSet.has(i));
  // Start of each cell's bytes: the writer walks the members in their own order (NDJSON).
  if (starts.length < cells.rows * cells.width) starts = new Int32Array(cells.rows * cells.width);
  let total = 0;
  for (let k = 0; k < cells.rows * cells.width; k++) {
    starts[k] = total;
    const kind = cells.kinds[k];
    if (kind === CELL_TEXT || kind === CELL_DIGITS) total += cells.lengths[k];
  }
  // The most a row can take besides its text (which JSON escapes grow at most sixfold): the
  // longest number is 24 characters, and quotes, separators and keys.
  if (options.format === "ndjson") {
    const { before, indexes } = objectPrefixes(columns);
    const keys = before.map((text) => encoder.encode(text));
    const perRow = keys.reduce((sum, key) => sum + key.length + 26, 4);
    const writer = new LineWriter(total * 6 + cells.rows * perRow);
    return writeNdjson(writer, cells, starts, keys, indexes, real);
  }
  // A byte of text that is not UTF-8 becomes the three of U+FFFD.
  const writer = new LineWriter(total * 3 + cells.rows * (cells.width * 27 + 4));
  return writeDelimited(writer, cells, starts, real, options.format === "tsv" ? 0x09 : 0x2c);
}

/** A cursor into {@link scratch}, grown before a batch to the most it could need. */
class LineWriter {
  out: Uint8Array;
  at = 0;

  constructor(most: number) {
    // A batch with long texts gets a buffer of its own, not kept for every later batch.
    if (most > KEEP_SCRATCH_BYTES) this.out = new Uint8Array(most);
    else {
      if (scratch.length < most) scratch = new Uint8Array(most + (most >> 2));
      this.out = scratch;
    }
  }

  ascii(text: string): void {
    const out = this.out;
    let at = this.at;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    this.at = at;
  }

  bytes(from: Uint8Array): void {
    const out = this.out;
    let at = this.at;
    // A loop beats `set` on the short runs written here (NDJSON keys, a big integer's digits).
    if (from.length > 64) {
      out.set(from, at);
      at += from.length;
    } else {
      for (let i = 0; i < from.length; i++) out[at++] = from[i];
    }
    this.at = at;
  }

  /**
   * An integer's decimal digits, written without making a string of it: the integers of an
   * export are most of its numbers, and `String(n)` cost about 3% of a worker's export time.
   * Beyond 32 bits (rare) it goes through the string.
   */
  integer(value: number): void {
    if (value > 0x7fffffff || value < -0x7fffffff) return this.ascii(numberText(value));
    this.at = writeDigits(this.out, this.at, value);
  }

  /** Text that is not valid UTF-8, or anything unusual: written through a string. */
  text(text: string): void {
    this.at += encoder.encodeInto(text, this.out.subarray(this.at)).written;
  }
}

function writeDelimited(
  w: LineWriter,
  cells: Cells,
  starts: Int32Array,
  real: boolean[],
  delimiter: number,
): Uint8Array {
  const { width, kinds, numbers, lengths, bytes } = cells;
  for (let r = 0, k = 0; r < cells.rows; r++) {
    const lineStart = w.at;
    for (let c = 0; c < width; c++, k++) {
      if (c > 0) w.out[w.at++] = delimiter;
      switch (kinds[k]) {
        case CELL_TEXT:
          delimitedText(w, bytes, starts[k], starts[k] + lengths[k], delimiter);
          break;
        case CELL_DIGITS:
          w.bytes(bytes.subarray(starts[k], starts[k] + lengths[k]));
          break;
        case CELL_INTEGER:
          if (real[c]) w.ascii(csvCell(numbers[k], true)!);
          else w.integer(numbers[k]);
          break;
        case CELL_REAL:
          w.ascii(csvCell(numbers[k], real[c])!);
      }
    }
    // Python writes a lone empty field as `""` so the line is not mistaken for a blank one.
    if (width === 1 && w.at === lineStart) w.ascii('""');
    w.out[w.at++] = CR;
    w.out[w.at++] = LF;
  }
  return w.out.subarray(0, w.at);
}

/**
 * One text field: quoted (its quotes doubled) when it holds the delimiter, a quote or a break.
 * Copied as it is checked; the rare field that needs quotes or is not UTF-8 is written again.
 */
function delimitedText(
  w: LineWriter,
  bytes: Uint8Array,
  start: number,
  end: number,
  delimiter: number,
): void {
  const out = w.out;
  let at = w.at;
  let quoted = false;
  let ascii = true;
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b === delimiter || b === QUOTE || b === CR || b === LF) quoted = true;
    else if (b >= 0x80) ascii = false;
    out[at++] = b;
  }
  if (!ascii && !validUtf8(bytes, start, end)) {
    const text = decoder.decode(bytes.subarray(start, end));
    w.text(quoted ? `"${text.replaceAll('"', '""')}"` : text);
    return;
  }
  if (quoted) {
    at = w.at;
    out[at++] = QUOTE;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b === QUOTE) out[at++] = QUOTE;
      out[at++] = b;
    }
    out[at++] = QUOTE;
  }
  w.at = at;
}

function writeNdjson(
  w: LineWriter,
  cells: Cells,
  starts: Int32Array,
  keys: Uint8Array[],
  indexes: number[],
  real: boolean[],
): Uint8Array {
  const { width, kinds, numbers, lengths, bytes } = cells;
  for (let r = 0; r < cells.rows; r++) {
    if (indexes.length === 0) w.ascii("{");
    for (let m = 0; m < indexes.length; m++) {
      const c = indexes[m];
      const k = r * width + c;
      w.bytes(keys[m]);
      switch (kinds[k]) {
        case CELL_TEXT:
          jsonText(w, bytes, starts[k], starts[k] + lengths[k]);
          break;
        case CELL_DIGITS:
          w.bytes(bytes.subarray(starts[k], starts[k] + lengths[k]));
          break;
        case CELL_INTEGER:
          if (real[c]) w.ascii(cellJson(numbers[k], true, false));
          else w.integer(numbers[k]);
          break;
        case CELL_REAL:
          w.ascii(cellJson(numbers[k], real[c], false));
          break;
        default:
          w.ascii("null");
      }
    }
    w.out[w.at++] = 0x7d; // }
    w.out[w.at++] = LF;
  }
  return w.out.subarray(0, w.at);
}

const HEX = "0123456789abcdef";

/** One text value as a JSON string, escaped as `JSON.stringify` escapes it. */
function jsonText(w: LineWriter, bytes: Uint8Array, start: number, end: number): void {
  const out = w.out;
  let at = w.at;
  let ascii = true;
  out[at++] = QUOTE;
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b >= 0x20 && b !== QUOTE && b !== BACKSLASH) {
      if (b >= 0x80) ascii = false;
      out[at++] = b;
      continue;
    }
    out[at++] = BACKSLASH;
    switch (b) {
      case QUOTE:
      case BACKSLASH:
        out[at++] = b;
        break;
      case 0x08:
        out[at++] = 0x62; // b
        break;
      case 0x09:
        out[at++] = 0x74; // t
        break;
      case LF:
        out[at++] = 0x6e; // n
        break;
      case 0x0c:
        out[at++] = 0x66; // f
        break;
      case CR:
        out[at++] = 0x72; // r
        break;
      default:
        out[at++] = 0x75; // u
        out[at++] = 0x30;
        out[at++] = 0x30;
        out[at++] = HEX.charCodeAt(b >> 4);
        out[at++] = HEX.charCodeAt(b & 15);
    }
  }
  out[at++] = QUOTE;
  // Written as it was checked; text that is not UTF-8 is written again, decoded.
  if (!ascii && !validUtf8(bytes, start, end)) {
    w.text(JSON.stringify(decoder.decode(bytes.subarray(start, end))));
    return;
  }
  w.at = at;
}

/**
 * True when `bytes[start, end)` is well-formed UTF-8 as the WHATWG decoder reads it: no
 * overlong forms, no surrogates, nothing above U+10FFFF, no sequence cut short.
 */
export function validUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return false;
    if (i + need >= end) return false;
    const second = bytes[i + 1];
    if (second < low || second > high) return false;
    for (let j = 2; j <= need; j++) {
      const next = bytes[i + j];
      if (next < 0x80 || next > 0xbf) return false;
    }
    i += need + 1;
  }
  return true;
}
