/**
 * Rows read into flat arrays of cells (`util/cell_lines.ts` writes them as export lines). A
 * text cell is not decoded into a string: SQLite appends its bytes to a `sqlite3_str` (a fast
 * call, like every other call made per cell here), and the batch's bytes are copied out once at
 * its end. Decoding each cell (`getCString`, 60 ns) and encoding the lines again cost more than
 * reading the cells did.
 *
 * @module
 */

import {
  CELL_DIGITS,
  CELL_INTEGER,
  CELL_NULL,
  CELL_REAL,
  CELL_TEXT,
  type Cells,
} from "../util/cell_lines.ts";
import {
  SQLITE_FLOAT,
  SQLITE_INTEGER,
  SQLITE_NOMEM,
  SQLITE_NULL,
  SQLITE_TEXT,
} from "./constants.ts";
import { SqliteError } from "./errors.ts";
import { sqlite } from "./ffi.ts";
import { SEEN_INTEGER, SEEN_REAL } from "./values.ts";

/** A text buffer above this size is dropped rather than kept for the next batch. */
const KEEP_BYTES = 1024 * 1024;

/** Rows of cells, refilled batch after batch (`Statement.readCells`). */
export class CellBatch implements Cells {
  width = 0;
  rows = 0;
  kinds: Uint8Array = new Uint8Array(0);
  lengths: Int32Array = new Int32Array(0);
  numbers: Float64Array = new Float64Array(0);
  bytes: Uint8Array = new Uint8Array(0);
  /** Bytes of text in the complete rows so far. */
  byteLength = 0;

  /** Empties the batch for rows of `width` cells, room for `maxRows` of them. */
  begin(width: number, maxRows: number): void {
    this.width = width;
    this.rows = 0;
    this.byteLength = 0;
    // A batch that held a long text is not kept as the size of every later one.
    if (this.bytes.length > KEEP_BYTES) this.bytes = new Uint8Array(0);
    const cells = width * maxRows;
    if (this.kinds.length < cells) {
      this.kinds = new Uint8Array(cells);
      this.lengths = new Int32Array(cells);
      this.numbers = new Float64Array(cells);
    }
    const text = textBuilder();
    text.reset(text.handle);
  }

  /** Copies the text of the complete rows out of SQLite. */
  end(): void {
    const text = textBuilder();
    const code = text.errcode(text.handle);
    if (code !== 0) {
      text.reset(text.handle);
      const why = code === SQLITE_NOMEM ? "Out of memory" : "Too much text";
      throw new SqliteError(`${why} reading a batch of an export`, code);
    }
    if (this.byteLength === 0) return;
    if (this.bytes.length < this.byteLength) {
      this.bytes = new Uint8Array(this.byteLength + (this.byteLength >> 2));
    }
    const value = text.value(text.handle);
    new Deno.UnsafePointerView(value!).copyInto(this.bytes.subarray(0, this.byteLength));
    // SQLite's copy is freed now rather than held until the thread's next batch.
    text.reset(text.handle);
  }
}

/** The `sqlite3_str` functions, and the one string of this thread that they build. */
interface TextBuilder {
  handle: Deno.PointerValue;
  append: (handle: Deno.PointerValue, text: Deno.PointerValue, length: number) => void;
  reset: (handle: Deno.PointerValue) => void;
  errcode: (handle: Deno.PointerValue) => number;
  value: (handle: Deno.PointerValue) => Deno.PointerValue;
}

/** Looked up on first use; null when the library is older than 3.25. */
let builder: TextBuilder | null | undefined;

function lookUpBuilder(): TextBuilder | null {
  const lib = sqlite();
  const create = lib.sqlite3_str_new;
  const append = lib.sqlite3_str_append;
  const reset = lib.sqlite3_str_reset;
  const errcode = lib.sqlite3_str_errcode;
  const value = lib.sqlite3_str_value;
  if (!create || !append || !reset || !errcode || !value) return null;
  return { handle: create(null), append, reset, errcode, value };
}

/** Set by tests, to run the path taken with a library older than 3.25. */
let pretendOld = false;

/** True when the library has what cells are read with (`sqlite3_str`, SQLite 3.25+). */
export function canReadCells(): boolean {
  if (builder === undefined) builder = lookUpBuilder();
  return builder !== null && !pretendOld;
}

/** @internal Tests: behave as if the library had no `sqlite3_str` (while `pretend` is true). */
export function pretendNoCellReading(pretend: boolean): void {
  pretendOld = pretend;
}

function textBuilder(): TextBuilder {
  if (!canReadCells()) throw new Error("This SQLite library has no sqlite3_str functions");
  return builder!;
}

/**
 * Reads the current row of `stmt` as the next row of `batch`, marking in `seen` which kinds of
 * numbers each column held (as `readColumn` does). False, and the row is not added, when a cell
 * is a BLOB: its text depends on the page (a download URL), so the caller reads that row itself.
 */
export function readRowCells(stmt: Deno.PointerValue, batch: CellBatch, seen: Uint8Array): boolean {
  const lib = sqlite();
  const { width, kinds, lengths, numbers } = batch;
  const first = batch.rows * width;
  let added = 0;
  for (let i = 0, k = first; i < width; i++, k++) {
    switch (lib.sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER: {
        seen[i] |= SEEN_INTEGER;
        const value = lib.sqlite3_column_double(stmt, i);
        if (Number.isSafeInteger(value)) {
          kinds[k] = CELL_INTEGER;
          numbers[k] = value;
        } else {
          // SQLite's own decimal text is exact where a number is not.
          kinds[k] = CELL_DIGITS;
          added += lengths[k] = appendText(stmt, i);
        }
        break;
      }
      case SQLITE_FLOAT:
        seen[i] |= SEEN_REAL;
        kinds[k] = CELL_REAL;
        numbers[k] = lib.sqlite3_column_double(stmt, i);
        break;
      case SQLITE_TEXT:
        kinds[k] = CELL_TEXT;
        added += lengths[k] = appendText(stmt, i);
        break;
      case SQLITE_NULL:
        kinds[k] = CELL_NULL;
        break;
      default:
        return false;
    }
  }
  batch.rows++;
  batch.byteLength += added;
  return true;
}

/** Appends the text of column `i` to the builder; its length in bytes. */
function appendText(stmt: Deno.PointerValue, i: number): number {
  const lib = sqlite();
  const text = lib.sqlite3_column_text(stmt, i);
  const length = lib.sqlite3_column_bytes(stmt, i);
  if (length === 0) return 0;
  if (text === null) throw new SqliteError("Out of memory reading a text value", SQLITE_NOMEM);
  builder!.append(builder!.handle, text, length);
  return length;
}
