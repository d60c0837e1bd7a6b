/**
 * A batch of CSV rows packed into a few typed arrays, as the import worker (`source_worker.ts`)
 * hands them to the importer's thread: every value's UTF-8 text in one buffer, its kind
 * (integer, real, text, empty), and the number of each real. The arrays are transferred, not
 * copied, and the importer binds each value where it lies (`Statement.bindTextAt`): no string,
 * array or object per row reaches the thread that inserts, which is the busier of the two.
 *
 * @module
 */

import { kindOfText, TEMPORAL_OTHER, temporalOf, type ValueKind } from "./column_types.ts";
import type { SourceRecord } from "./records.ts";

/** Rows of `width` values; value `k` of row `r` is at `r * width + k`. */
export interface EncodedRows {
  rows: number;
  width: number;
  /** The line of the file each row starts on. */
  lines: Int32Array;
  /** Each value's kind (`ValueKind`); 0 for empty values, and 3 for all text when not classified. */
  kinds: Uint8Array;
  /** Where each value's UTF-8 text starts in `text`. */
  starts: Int32Array;
  /** Each value's length in bytes; -1 for NULL. */
  lengths: Int32Array;
  /** Each real's number (kind 2), as `Number` reads its text; 0 for the others. */
  reals: Float64Array;
  /** Per column: the widest kind of its values in these rows. */
  widest: Uint8Array;
  /** Per column: `temporalOf`'s bits of its values (numbers count as other), when classified. */
  temporal: Uint8Array;
  text: Uint8Array;
}

/** True for packed rows, false for an array of records. */
export function isEncoded(batch: SourceRecord[] | EncodedRows): batch is EncodedRows {
  return !Array.isArray(batch);
}

/**
 * Packs CSV records (text or NULL values, `width` of them each). With `classify`, each value's
 * kind is told as the importer's type inference tells it (`kindOfText`); without, every value
 * is text.
 */
export function encodeRows(
  records: SourceRecord[],
  width: number,
  classify: boolean,
): EncodedRows {
  const count = records.length * width;
  const lines = new Int32Array(records.length);
  const kinds = new Uint8Array(count);
  const starts = new Int32Array(count);
  const lengths = new Int32Array(count);
  const reals = new Float64Array(count);
  const widest = new Uint8Array(width);
  const temporal = new Uint8Array(width);
  let chars = 0;
  for (const record of records) {
    for (const value of record.values) if (typeof value === "string") chars += value.length;
  }
  // Room for ASCII text; grown (doubled) when other text needs more.
  let text: Uint8Array = new Uint8Array(chars + 64);
  let at = 0;
  for (let r = 0; r < records.length; r++) {
    const record = records[r];
    lines[r] = record.line;
    const values = record.values;
    for (let i = 0, k = r * width; i < width; i++, k++) {
      const value = values[i] as string | null | undefined;
      if (value === null || value === undefined) {
        lengths[k] = -1;
        continue;
      }
      const length = value.length;
      starts[k] = at;
      if (at + length > text.length) text = grown(text, at + length);
      // ASCII is copied by hand (cheaper than a call into the encoder for short values), and
      // looked at on the way: most fields show at once that they are text or a plain integer,
      // and only the others are given to `kindOfText`'s patterns.
      let marks = 0; // characters other than digits and a leading "-"
      let dot = -1; // where the last "."
      let other = false; // a character no number has where it stands
      let j = 0;
      for (; j < length; j++) {
        const code = value.charCodeAt(j);
        if (code > 0x7f) break;
        text[at + j] = code;
        if ((code >= 48 && code <= 57) || (code === 45 && j === 0)) continue;
        marks++;
        if (code === 46) dot = j;
        else if (code === 45 || code === 43) {
          const before = value.charCodeAt(j - 1);
          if (before !== 101 && before !== 69) other = true;
        } else if (code !== 101 && code !== 69) other = true;
      }
      if (j < length) {
        if (at + length * 3 > text.length) text = grown(text, at + length * 3);
        lengths[k] = encoder.encodeInto(value, text.subarray(at)).written;
      } else lengths[k] = length;
      let kind: ValueKind = 3;
      if (classify) {
        if (length === 0) kind = 0;
        else if (j === length && other) kind = 3;
        else if (j === length && marks === 0 && isPlainInteger(value)) kind = 1;
        else if (j === length && marks === 1 && dot >= 0 && isPlainDecimal(value, dot)) kind = 2;
        else kind = kindOfText(value);
        if (kind === 2) reals[k] = Number(value);
        if (kind > widest[i]) widest[i] = kind;
        if (kind && !(temporal[i] & TEMPORAL_OTHER)) {
          temporal[i] |= kind === 3 ? temporalOf(value) : TEMPORAL_OTHER;
        }
      } else widest[i] = 3;
      kinds[k] = kind;
      at += lengths[k];
    }
  }
  return {
    rows: records.length,
    width,
    lines,
    kinds,
    starts,
    lengths,
    reals,
    widest,
    temporal,
    text,
  };
}

const encoder = new TextEncoder();

/**
 * Digits and one "." at `dot` (after an optional "-"): a real when `kindOfText` would say so, a
 * digit after the "." and none or one digit before it, or several without a leading zero.
 */
function isPlainDecimal(value: string, dot: number): boolean {
  const from = value.charCodeAt(0) === 45 ? 1 : 0;
  return dot < value.length - 1 && (dot - from <= 1 || value.charCodeAt(from) !== 48);
}

/**
 * Digits alone (after an optional "-"): an integer when `kindOfText` would say so, 1 to 18 digits
 * without a leading zero.
 */
function isPlainInteger(value: string): boolean {
  const from = value.charCodeAt(0) === 45 ? 1 : 0;
  const digits = value.length - from;
  return digits >= 1 && digits <= 18 && (digits === 1 || value.charCodeAt(from) !== 48);
}

function grown(text: Uint8Array, need: number): Uint8Array {
  const out = new Uint8Array(Math.max(need, text.length * 2));
  out.set(text);
  return out;
}

/** The buffers of `rows`, to transfer with them. */
export function transferables(rows: EncodedRows): ArrayBuffer[] {
  return [
    rows.lines,
    rows.kinds,
    rows.starts,
    rows.lengths,
    rows.reals,
    rows.widest,
    rows.temporal,
    rows.text,
  ].map((array) => array.buffer as ArrayBuffer);
}
