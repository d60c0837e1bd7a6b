/**
 * JSON records: a file holding one array of objects, or newline-delimited JSON (one object a
 * line). Both stream: an array is cut into its elements as the text arrives and each element is
 * parsed on its own, so a file larger than memory imports. Objects' keys become columns (new
 * keys add columns as they appear); nested objects and arrays are kept as JSON text.
 *
 * @module
 */

import { ImportError } from "./import_error.ts";
import type { RecordSource, SourceRecord } from "./records.ts";

/** A record source over the text of `chunks` of JSON (`json`: one array) or NDJSON. */
export function jsonSource(
  chunks: AsyncIterable<string>,
  counter: { bytes: number },
  format: "json" | "ndjson",
): RecordSource {
  const columns: string[] = [];
  const index = new Map<string, number>();
  const toRecord = (text: string, line: number): SourceRecord => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ImportError(`invalid JSON: ${(error as Error).message}`, { line, cause: error });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new ImportError("expected a JSON object (one row), found " + kindOf(value), { line });
    }
    const values: unknown[] = new Array(columns.length).fill(null);
    for (const [key, cell] of Object.entries(value)) {
      const folded = key.toLowerCase();
      let at = index.get(folded);
      if (at === undefined) {
        at = columns.length;
        index.set(folded, at);
        columns.push(key);
      }
      values[at] = cell !== null && typeof cell === "object" ? JSON.stringify(cell) : cell;
    }
    return { line, values };
  };
  const split = format === "json" ? new ArraySplitter() : new LineSplitter();
  async function* batches(): AsyncGenerator<SourceRecord[]> {
    for await (const chunk of chunks) {
      const out = split.push(chunk).map(([text, line]) => toRecord(text, line));
      if (out.length) yield out;
    }
    const out = split.end().map(([text, line]) => toRecord(text, line));
    if (out.length) yield out;
  }
  return {
    format,
    columns,
    typed: true,
    get bytesRead() {
      return counter.bytes;
    },
    batches,
  };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Element text and the line it starts on. */
type Piece = [string, number];

/** NDJSON: one element a line; blank lines are skipped. */
class LineSplitter {
  #rest = "";
  #line = 1;

  push(text: string): Piece[] {
    const pieces: Piece[] = [];
    const all = this.#rest + text;
    let start = 0;
    for (let nl = all.indexOf("\n"); nl !== -1; nl = all.indexOf("\n", start)) {
      const line = all.slice(start, nl).trim();
      if (line) pieces.push([line, this.#line]);
      this.#line++;
      start = nl + 1;
    }
    this.#rest = all.slice(start);
    return pieces;
  }

  end(): Piece[] {
    const line = this.#rest.trim();
    return line ? [[line, this.#line]] : [];
  }
}

/**
 * One top-level JSON array cut into the texts of its elements: it follows strings (and their
 * escapes) and nesting depth only, leaving the parsing of each element to `JSON.parse`.
 */
class ArraySplitter {
  #text = "";
  #pos = 0;
  #start = -1;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #line = 1;
  #elementLine = 1;
  #opened = false;
  #closed = false;

  push(text: string): Piece[] {
    this.#text = this.#text.slice(this.#start === -1 ? this.#pos : this.#start) + text;
    this.#pos = this.#start === -1 ? 0 : this.#pos - this.#start;
    if (this.#start !== -1) this.#start = 0;
    const pieces: Piece[] = [];
    const s = this.#text;
    for (; this.#pos < s.length; this.#pos++) {
      const c = s.charCodeAt(this.#pos);
      if (c === 10) this.#line++;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 92) this.#escaped = true;
        else if (c === 34) this.#inString = false;
        continue;
      }
      if (c === 32 || c === 9 || c === 10 || c === 13) continue;
      if (this.#closed) throw new ImportError("unexpected text after the JSON array", this.#at());
      if (!this.#opened) {
        if (c !== 91) {
          throw new ImportError("a JSON file to import must hold an array of objects", this.#at());
        }
        this.#opened = true;
        continue;
      }
      if (this.#depth === 0 && (c === 44 || c === 93)) {
        if (this.#start === -1) {
          if (c === 44) throw new ImportError("unexpected , in the JSON array", this.#at());
        } else {
          pieces.push([s.slice(this.#start, this.#pos), this.#elementLine]);
          this.#start = -1;
        }
        if (c === 93) this.#closed = true;
        continue;
      }
      if (this.#start === -1) {
        this.#start = this.#pos;
        this.#elementLine = this.#line;
      }
      if (c === 34) this.#inString = true;
      else if (c === 123 || c === 91) this.#depth++;
      else if (c === 125 || c === 93) this.#depth--;
    }
    return pieces;
  }

  end(): Piece[] {
    if (!this.#opened) throw new ImportError("The file is empty: there is no JSON array");
    if (!this.#closed) throw new ImportError("the JSON array is not closed with ]", this.#at());
    return [];
  }

  #at(): { line: number } {
    return { line: this.#line };
  }
}
