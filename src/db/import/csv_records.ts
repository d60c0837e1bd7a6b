/**
 * CSV and TSV records (csv_parser.ts reads quoted fields, quoted newlines, doubled quotes): the
 * first record is the header, unless the column names are known already (a later part of a file
 * sent in parts). Rows shorter than the header are padded with nulls; a row longer than the
 * header is an error naming its line unless the extra fields are empty (trailing delimiters).
 *
 * @module
 */

import { CsvParser, type CsvRecord } from "./csv_parser.ts";
import { ImportError } from "./import_error.ts";
import { distinctColumnNames, type RecordSource, type SourceRecord } from "./records.ts";

/** How the fields of a CSV file are separated and quoted. */
export interface CsvDialect {
  delimiter: string;
  quote: string;
}

/** Where the text starts, for a part of a file read on its own. */
export interface CsvStart {
  /** The column names, when the text has no header row. */
  columns?: readonly string[];
  /** The file's line the text starts on (default 1). */
  line?: number;
}

/** Reads delimited text pushed to it into records, synchronously. */
export class CsvRecordReader {
  /** The column names: the header's once it was read, or the ones given. */
  readonly columns: string[] = [];
  #parser: CsvParser;
  #header: string[] | null;
  #emptyAsNull: boolean;

  constructor(dialect: CsvDialect, emptyAsNull: boolean, start: CsvStart = {}) {
    this.#parser = new CsvParser(dialect.delimiter, dialect.quote, start.line ?? 1);
    this.#emptyAsNull = emptyAsNull;
    this.#header = start.columns ? [...start.columns] : null;
    if (this.#header) this.columns.push(...this.#header);
  }

  /** True once the header is known (read, or given). */
  get hasHeader(): boolean {
    return this.#header !== null;
  }

  /** The line the text not read yet starts on. */
  get line(): number {
    return this.#parser.line;
  }

  /** The records completed by `text`. */
  push(text: string): SourceRecord[] {
    return this.#records(this.#parser.push(text));
  }

  /** The last record, when the text does not end with a line break. */
  end(): SourceRecord[] {
    return this.#records(this.#parser.end());
  }

  #records(parsed: CsvRecord[]): SourceRecord[] {
    const out: SourceRecord[] = [];
    for (const { fields, line } of parsed) {
      if (this.#header === null) {
        this.#header = distinctColumnNames(fields);
        this.columns.push(...this.#header);
        continue;
      }
      const width = this.#header.length;
      if (fields.length > width) {
        for (let i = width; i < fields.length; i++) {
          if (fields[i] !== "") {
            throw new ImportError(
              `the row has ${fields.length} fields but the header names ${width} columns`,
              { line },
            );
          }
        }
        fields.length = width;
      }
      const values: unknown[] = fields;
      if (this.#emptyAsNull) {
        for (let i = 0; i < values.length; i++) if (values[i] === "") values[i] = null;
      }
      while (values.length < width) values.push(null);
      out.push({ line, values });
    }
    return out;
  }
}

/** A record source over the text of delimited `chunks`. */
export function csvSource(
  chunks: AsyncIterable<string>,
  dialect: CsvDialect,
  counter: { bytes: number },
  format: "csv" | "tsv",
  emptyAsNull: boolean,
): RecordSource {
  const reader = new CsvRecordReader(dialect, emptyAsNull);
  async function* batches(): AsyncGenerator<SourceRecord[]> {
    for await (const text of chunks) {
      const out = reader.push(text);
      if (out.length) yield out;
    }
    const out = reader.end();
    if (out.length) yield out;
    if (!reader.hasHeader) throw new ImportError("The file is empty: there is no header row");
  }
  return {
    format,
    columns: reader.columns,
    typed: false,
    get bytesRead() {
      return counter.bytes;
    },
    batches,
  };
}
