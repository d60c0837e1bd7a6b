/**
 * CSV and TSV records (csv_parser.ts reads quoted fields, quoted newlines, doubled quotes): the
 * first record is the header. Rows shorter than the header are padded with nulls; a row longer
 * than the header is an error naming its line unless the extra fields are empty (trailing
 * delimiters).
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

/** A record source over the text of delimited `chunks`. */
export function csvSource(
  chunks: AsyncIterable<string>,
  dialect: CsvDialect,
  counter: { bytes: number },
  format: "csv" | "tsv",
  emptyAsNull: boolean,
): RecordSource {
  const columns: string[] = [];
  const parser = new CsvParser(dialect.delimiter, dialect.quote);
  let header: string[] | null = null;
  const toRecords = (parsed: CsvRecord[]): SourceRecord[] => {
    const out: SourceRecord[] = [];
    for (const { fields, line } of parsed) {
      if (header === null) {
        header = distinctColumnNames(fields);
        columns.push(...header);
        continue;
      }
      const width = header.length;
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
      if (emptyAsNull) {
        for (let i = 0; i < values.length; i++) if (values[i] === "") values[i] = null;
      }
      while (values.length < width) values.push(null);
      out.push({ line, values });
    }
    return out;
  };
  async function* batches(): AsyncGenerator<SourceRecord[]> {
    for await (const text of chunks) {
      const out = toRecords(parser.push(text));
      if (out.length) yield out;
    }
    const out = toRecords(parser.end());
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
