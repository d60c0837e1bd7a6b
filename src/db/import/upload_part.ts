/**
 * One part of a CSV or TSV file uploaded in the browser (`POST /<db>/<table>/-/upload`): the
 * browser cuts the file at line breaks outside quotes and sends the parts one after another; each
 * part is read by the importer's own CSV reader and inserted by the importer, synchronously,
 * inside the caller's write transaction, so a part that fails leaves none of its rows. The first
 * part holds the header row (and may create the table); the later ones come with the column names
 * the first answered and the file line they start on, so errors name the file's lines.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { CsvRecordReader } from "./csv_records.ts";
import { ImportError } from "./import_error.ts";
import { importRecords, type ImportResult } from "./importer.ts";
import { tableInfo } from "./import_table.ts";
import {
  type ImportColumnType,
  type ImportType,
  TEMPORAL_DATE,
  TEMPORAL_DATETIME,
  temporalOf,
} from "./column_types.ts";
import type { SourceRecord } from "./records.ts";

/** How to read one part and where its rows go. */
export interface UploadPartOptions {
  table: string;
  /** The part's text. */
  text: string;
  delimiter: string;
  /** The file line the text starts on (1 for the first part). */
  line: number;
  /** The column names, for a part without the header row (null: the text starts with it). */
  columns: string[] | null;
  /** Create the table (refused when it exists); else it must exist. */
  create: boolean;
  /** Primary key columns of a new table. */
  pk: string[];
  /** Types of a new table's columns by position; null lets the data decide. */
  types: (ImportType | null)[];
  /** The table was created by the first part of this same file (`ImportOptions.continues`). */
  continues: boolean;
  /** Columns the first part found to hold only dates (or dates and times), by name. */
  temporal?: Record<string, ImportColumnType>;
}

/** What one part did: the importer's result, and where the next part starts. */
export interface UploadPartResult extends ImportResult {
  /** The names the file's columns were given (send them with the later parts). */
  fileColumns: string[];
  /** The file line the next part starts on. */
  nextLine: number;
  /** The `CREATE TABLE` statement of a table this part created, else null. */
  schema: string | null;
  /** The part changed the schema: created the table, or widened a column (rebuilt it). */
  schemaChanged: boolean;
  /** Columns of `temporal` this part gave a value that is not of their column type. */
  notTemporal: string[];
}

/**
 * Text is handed to the reader this much at a time, so the records of a part (a few MB) never
 * all wait in memory at once.
 */
const PIECE = 256 * 1024;

/** Reads and inserts one part on `conn`, inside the caller's transaction. */
export function importUploadPart(conn: Connection, options: UploadPartOptions): UploadPartResult {
  const { table, text } = options;
  const exists = tableInfo(conn, table).length > 0;
  const version = schemaVersion(conn);
  if (options.create && exists) throw new ImportError(`Table already exists: ${table}`);
  if (!options.create && !exists) throw new ImportError(`Table not found: ${table}`);
  const reader = new CsvRecordReader(
    { delimiter: options.delimiter, quote: '"' },
    true,
    { columns: options.columns ?? undefined, line: options.line },
  );
  // Filled once the header is known: the importer reads it when it sets the table up.
  const types: Record<string, ImportType> = {};
  const typed = () => {
    const names = reader.columns;
    if (options.types.length && options.types.length !== names.length) {
      throw new ImportError(
        `${options.types.length} column types were given for the ${names.length} columns`,
      );
    }
    names.forEach((name, i) => {
      const type = options.types[i];
      if (type) types[name] = type;
    });
  };
  // Which columns of `temporal` (by position) have met a value that is not of their type.
  const watched = Object.entries(options.temporal ?? {}).map(([name, type]) => ({
    name,
    at: reader.columns.indexOf(name),
    bit: type === "date" ? TEMPORAL_DATE : TEMPORAL_DATETIME,
    broken: false,
  })).filter((column) => column.at >= 0);
  const watch = (records: SourceRecord[]) => {
    for (const column of watched) {
      if (column.broken) continue;
      for (const { values } of records) {
        const value = values[column.at];
        if (typeof value === "string" && temporalOf(value) !== column.bit) {
          column.broken = true;
          break;
        }
      }
    }
  };
  function* batches(): Generator<SourceRecord[]> {
    let header = reader.hasHeader;
    if (header) typed();
    for (let at = 0; at < text.length + PIECE; at += PIECE) {
      // The last round reads the record the text ends in without a line break.
      const records = at < text.length ? reader.push(text.slice(at, at + PIECE)) : reader.end();
      if (!header && reader.hasHeader) {
        header = true;
        typed();
      }
      if (records.length) {
        if (watched.length) watch(records);
        yield records;
      }
    }
    if (!header) throw new ImportError("The file is empty: there is no header row");
  }
  const result = importRecords(
    conn,
    { columns: reader.columns, typed: false, bytesRead: text.length },
    batches(),
    {
      table,
      pk: options.create ? options.pk : undefined,
      types,
      continues: options.continues,
      checkNumbers: true,
      flagHints: false,
    },
  );
  const schema = result.created
    ? String(conn.query("select sql from sqlite_master where name = ?", [table]).rows[0][0])
    : null;
  return {
    ...result,
    fileColumns: [...reader.columns],
    nextLine: reader.line,
    schema,
    schemaChanged: schemaVersion(conn) !== version,
    notTemporal: watched.filter((column) => column.broken).map((column) => column.name),
  };
}

function schemaVersion(conn: Connection): number {
  return Number(conn.query("pragma schema_version").rows[0][0]);
}
