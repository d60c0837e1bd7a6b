/**
 * Opening a file for import: its encoding (named, or detected from the first 64 KB), its format
 * (named, from the file name, or from the first character), and for CSV its delimiter and quote
 * (named, or sniffed from the first lines).
 *
 * @module
 */

import { csvSource } from "./csv_records.ts";
import { jsonSource } from "./json_records.ts";
import { detectEncoding, encodingNamed, textChunks } from "./encoding.ts";
import { ImportError } from "./import_error.ts";
import type { ImportFormat, RecordSource } from "./records.ts";

/** How to read a file; everything left out is detected. */
export interface SourceOptions {
  /** The file's name (its extension names the format). */
  name?: string;
  format?: ImportFormat;
  /** `utf-8`, `latin-1`, `windows-1252`, `utf-16le`… */
  encoding?: string;
  delimiter?: string;
  quote?: string;
  /** Empty CSV fields become NULL (type detection on) rather than empty text. */
  emptyAsNull?: boolean;
}

const HEAD_BYTES = 64 * 1024;

const EXTENSIONS: Record<string, ImportFormat> = {
  csv: "csv",
  tsv: "tsv",
  tab: "tsv",
  json: "json",
  ndjson: "ndjson",
  jsonl: "ndjson",
};

/** The format a file name's extension names, or null (also for `.txt` and no extension). */
export function formatOfName(name: string): ImportFormat | null {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? null : EXTENSIONS[name.slice(dot + 1).toLowerCase()] ?? null;
}

/** Opens `bytes` (a file's contents as they stream in) as a record source. */
export async function openSource(
  bytes: AsyncIterable<Uint8Array>,
  options: SourceOptions = {},
): Promise<RecordSource> {
  const counter = { bytes: 0 };
  const iterator = bytes[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headSize = 0;
  let done = false;
  while (headSize < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    headSize += next.value.length;
  }
  const headBytes = concat(head, headSize);
  const encoding = options.encoding ? encodingNamed(options.encoding) : detectEncoding(headBytes);
  async function* counted(): AsyncGenerator<Uint8Array> {
    for (const chunk of head) {
      counter.bytes += chunk.length;
      yield chunk;
    }
    while (!done) {
      const next = await iterator.next();
      if (next.done) break;
      counter.bytes += next.value.length;
      yield next.value;
    }
  }
  const chunks = textChunks(counted(), encoding);
  const headText = new TextDecoder(encoding).decode(headBytes.subarray(0, 16 * 1024));
  const format = options.format ?? formatOfName(options.name ?? "") ?? sniffFormat(headText);
  if (format === "json" || format === "ndjson") return jsonSource(chunks, counter, format);
  const dialect = sniffDialect(headText, format);
  return csvSource(
    chunks,
    {
      delimiter: options.delimiter ?? dialect.delimiter,
      quote: options.quote ?? dialect.quote,
    },
    counter,
    format,
    options.emptyAsNull ?? false,
  );
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** JSON when the text starts with `[`, NDJSON with `{`, else CSV. */
export function sniffFormat(text: string): ImportFormat {
  const first = text.replace(/^\uFEFF/, "").trimStart()[0];
  return first === "[" ? "json" : first === "{" ? "ndjson" : "csv";
}

const DELIMITERS = [",", "\t", ";", "|"];

/**
 * The delimiter and quote of delimited text: for each candidate delimiter, how many times it
 * appears outside quotes on each of the first lines; the winner appears the same number of
 * times (at least once) on the most lines, ties going to the earlier candidate. A `.tsv` file
 * is tab-separated whatever its first lines show.
 */
export function sniffDialect(
  text: string,
  format: "csv" | "tsv",
): { delimiter: string; quote: string } {
  const quote = /(^|[,\t;|])'[^']*'([,\t;|]|$)/m.test(text) && !text.includes('"') ? "'" : '"';
  if (format === "tsv") return { delimiter: "\t", quote };
  const lines = logicalLines(text, quote).slice(0, 20);
  // The last line of the sample may be cut off.
  if (lines.length > 1) lines.pop();
  let best = { delimiter: ",", score: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = lines.map((line) => line.split(delimiter).length - 1);
    const tally = new Map<number, number>();
    for (const count of counts) if (count > 0) tally.set(count, (tally.get(count) ?? 0) + 1);
    const score = Math.max(0, ...tally.values());
    if (score > best.score) best = { delimiter, score };
  }
  return { delimiter: best.delimiter, quote };
}

/** The lines of `text` with quoted sections (which may hold delimiters and newlines) removed. */
function logicalLines(text: string, quote: string): string[] {
  const lines: string[] = [];
  let current = "";
  let quoted = false;
  for (const char of text) {
    if (char === quote) quoted = !quoted;
    else if (quoted) continue;
    else if (char === "\n") {
      if (current.trim()) lines.push(current);
      current = "";
    } else current += char;
  }
  if (current.trim()) lines.push(current);
  return lines;
}

/** Checks a `--delimiter`-style value: one character. */
export function checkDelimiter(value: string): string {
  const named: Record<string, string> = { tab: "\t", "\\t": "\t", comma: ",", semicolon: ";" };
  const delimiter = named[value.toLowerCase()] ?? value;
  if ([...delimiter].length !== 1) {
    throw new ImportError(`A delimiter is one character, not "${value}"`);
  }
  return delimiter;
}
