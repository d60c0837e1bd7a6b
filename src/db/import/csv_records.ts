/**
 * CSV and TSV records through `csv-parse` (quoted fields, quoted newlines, escaped quotes): the
 * first record is the header. Rows shorter than the header are padded with nulls; a row longer
 * than the header is an error naming its line unless the extra fields are empty (trailing
 * delimiters).
 *
 * @module
 */

import { parse } from "csv-parse";
import { ImportError } from "./import_error.ts";
import { distinctColumnNames, type RecordSource, type SourceRecord } from "./records.ts";

/** How the fields of a CSV file are separated and quoted. */
export interface CsvDialect {
  delimiter: string;
  quote: string;
}

interface CsvErrorLike {
  code?: string;
  lines?: number;
  column?: number | string;
  message: string;
}

/** A record source over UTF-8 `chunks` of delimited text. */
export function csvSource(
  chunks: AsyncIterable<Uint8Array>,
  dialect: CsvDialect,
  counter: { bytes: number },
  format: "csv" | "tsv",
  emptyAsNull: boolean,
): RecordSource {
  const columns: string[] = [];
  const parser = parse({
    delimiter: dialect.delimiter,
    quote: dialect.quote || false,
    relax_column_count: true,
    skip_empty_lines: true,
  });
  let header: string[] | null = null;
  let lastLine = 0;
  // The line a record ends on is the parser's line count when it hands the record over (read
  // live rather than with csv-parse's `info` option, which copies an object for every record).
  const toRecord = (record: string[]): SourceRecord | null => {
    const line = lastLine + 1;
    lastLine = (parser as unknown as { info: { lines: number } }).info.lines;
    if (header === null) {
      header = distinctColumnNames(record);
      columns.push(...header);
      return null;
    }
    const width = header.length;
    if (record.length > width) {
      if (record.slice(width).some((value) => value !== "")) {
        throw new ImportError(
          `the row has ${record.length} fields but the header names ${width} columns`,
          { line },
        );
      }
      record.length = width;
    }
    const values: unknown[] = record;
    if (emptyAsNull) {
      for (let i = 0; i < values.length; i++) if (values[i] === "") values[i] = null;
    }
    while (values.length < width) values.push(null);
    return { line, values };
  };
  // Records arrive as "data" events while csv-parse takes a chunk (flowing mode: reading them
  // with read() instead would hold back the chunk's callback once 16 records wait).
  let parsed: SourceRecord[] = [];
  let failure: unknown = null;
  parser.on("data", (record: string[]) => {
    if (failure) return;
    try {
      const row = toRecord(record);
      if (row) parsed.push(row);
    } catch (error) {
      failure = error;
    }
  });
  const take = (): SourceRecord[] => {
    if (failure) throw failure;
    const out = parsed;
    parsed = [];
    return out;
  };
  // A write's callback comes once csv-parse has taken the chunk (its records are then waiting
  // to be read) or with the error that stopped it.
  parser.on("error", () => {});
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) =>
      parser.write(chunk, (error) => error ? reject(csvError(error)) : resolve())
    );
  const end = () =>
    new Promise<void>((resolve, reject) => {
      parser.once("finish", resolve);
      parser.once("error", (error: CsvErrorLike) => reject(csvError(error)));
      parser.end();
    });
  async function* batches(): AsyncGenerator<SourceRecord[]> {
    for await (const chunk of chunks) {
      await write(chunk);
      const out = take();
      if (out.length) yield out;
    }
    await end();
    const out = take();
    if (out.length) yield out;
    if (header === null) throw new ImportError("The file is empty: there is no header row");
  }
  return {
    format,
    columns,
    typed: false,
    get bytesRead() {
      return counter.bytes;
    },
    batches,
  };
}

/** csv-parse's error as an ImportError with the line (and field) it names. */
function csvError(error: CsvErrorLike | Error): ImportError {
  return new ImportError(`Cannot read the CSV file: ${error.message}`, { cause: error });
}
