/**
 * Imports a record source into a table, in one transaction: the table is created from the first
 * rows (types inferred unless switched off), or an existing table is appended to, replaced into
 * or upserted into. A column created as INTEGER that later meets a real, or a number column that
 * meets text, is widened on the spot (the table rebuilt with the new type inside the same
 * transaction), so no value is ever stored under a type that would change it. Memory stays
 * bounded: rows are inserted a parsed chunk at a time.
 *
 * The new table's columns and types are decided in import_columns.ts, the INSERT statements run
 * by row_inserter.ts, and the SQL besides inserting is in import_table.ts.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { BindValue } from "../../sqlite/values.ts";
import { quoteName } from "../write_values.ts";
import { holdsNumbersOnly, readsAsNumber } from "../write_checks.ts";
import { ImportError } from "./import_error.ts";
import {
  indexText,
  markTextIndex,
  rebuildWider,
  refreshTextIndex,
  tableInfo,
  type TextIndexMark,
} from "./import_table.ts";
import type { RecordSource, SourceRecord } from "./records.ts";
import { type EncodedRows, isEncoded } from "./encoded_rows.ts";
import {
  type ImportColumnType,
  type ImportType,
  kindOfText,
  kindOfType,
  kindOfValue,
  storedText,
  TEMPORAL_OTHER,
  temporalColumnType,
  temporalOf,
  typeOfKind,
  type ValueKind,
} from "./column_types.ts";
import {
  type Batch,
  type Column,
  columnsSql,
  continuedTable,
  inferredType,
} from "./import_columns.ts";
import { RowInserter } from "./row_inserter.ts";

/** What to do with the rows. */
export interface ImportOptions {
  table: string;
  /** Primary key columns of a new table (one not in the file becomes an automatic id). */
  pk?: string[];
  /** Rows whose key is taken replace the old row. */
  replace?: boolean;
  /** Rows whose key is taken update the old row's columns they name. */
  upsert?: boolean;
  /** Add columns the existing table lacks. */
  alter?: boolean;
  /** Infer column types (default true); off, every new column is TEXT. */
  detectTypes?: boolean;
  /** Column types chosen by the user, by column name (new tables only). */
  types?: Record<string, ImportType>;
  /** Columns for a full-text index (`<table>_fts`, FTS5, content table `table`). */
  fts?: string[];
  /** Called after each chunk of rows. */
  onProgress?: (progress: ImportProgress) => void;
  /** Rows looked at before a new table is created (default 10,000). */
  sampleRows?: number;
  /**
   * The table was created by an earlier part of the same file (a browser upload sends a file in
   * parts, each in a transaction of its own): its columns are typed and widened as in the part
   * that created them, so a later `007` in an INTEGER column makes it TEXT as one import would.
   * Refused (ImportError) unless the table is still exactly as the importer created it: the same
   * columns, types and key, and no index or trigger, which a rebuild would lose.
   */
  continues?: boolean;
  /**
   * Text for an existing column declared for numbers (`INTEGER`, `REAL`, `NUMERIC`…) must read as
   * a number, as the JSON write API checks it: `"abc"` is an error naming the line and column
   * rather than text kept in a number column. Off for `vitrine insert`, which stores it as SQLite
   * would.
   */
  checkNumbers?: boolean;
  /** Errors suggest `vitrine insert`'s flags (`--alter`, `--replace`, `--upsert`): default true. */
  flagHints?: boolean;
}

/** How far an import has come. */
export interface ImportProgress {
  rows: number;
  bytes: number;
}

/** What an import did. */
export interface ImportResult {
  table: string;
  rows: number;
  created: boolean;
  /**
   * The table's columns; `column_type` names the column type (`date`, `datetime`) of a TEXT
   * column this import created whose every value is an ISO date (or date and time).
   */
  columns: { name: string; type: string; column_type: ImportColumnType | null }[];
}

/** What the importer needs of a source besides its batches. */
export type SourceShape = Pick<RecordSource, "columns" | "typed" | "bytesRead">;

/** Imports `source` into `options.table` on `conn` in one transaction (rolled back on error). */
export async function importSource(
  conn: Connection,
  source: RecordSource<Batch>,
  options: ImportOptions,
): Promise<ImportResult> {
  checkOptions(options);
  conn.exec("BEGIN IMMEDIATE");
  const run = new ImportRun(conn, source, options);
  try {
    for await (const batch of source.batches()) run.accept(batch);
    const result = run.end();
    conn.exec("COMMIT");
    return result;
  } catch (error) {
    if (conn.inTransaction) conn.exec("ROLLBACK");
    throw error;
  } finally {
    run.close();
  }
}

/**
 * Imports records at hand (`batches`, read synchronously, whose columns `source` names) into
 * `options.table`, inside the transaction the caller holds: a part of a file uploaded in the
 * browser runs in the write that records its history, and an error leaves the caller to roll
 * back.
 */
export function importRecords(
  conn: Connection,
  source: SourceShape,
  batches: Iterable<SourceRecord[]>,
  options: ImportOptions,
): ImportResult {
  checkOptions(options);
  const run = new ImportRun(conn, source, options);
  try {
    for (const batch of batches) run.accept(batch);
    return run.end();
  } finally {
    run.close();
  }
}

function checkOptions(options: ImportOptions): void {
  if (!options.table) throw new ImportError("Name the table to import into");
  if (options.replace && options.upsert) {
    throw new ImportError("Choose one of --replace and --upsert");
  }
}

/** One import: the sample that decides the table, then every batch converted and inserted. */
class ImportRun {
  #conn: Connection;
  #source: SourceShape;
  /** The first batches, which decide a new table's types; null once the table is set up. */
  #sample: Batch[] | null = [];
  #sampled = 0;
  #options: ImportOptions;
  #detect: boolean;
  #columns: Column[] = [];
  #created = false;
  /** A column was widened: the table was rebuilt. */
  #widened = false;
  /** Where this import's rows start for the table's full-text index, if it can follow them. */
  #textMark: TextIndexMark | null = null;
  #pks: string[] = [];
  /** The INSERT statements and the rows waiting for them. */
  #inserter: RowInserter;
  /** The row being read (one array for every row: its values are copied to the inserter). */
  #row: BindValue[] = [];
  /** Per column of an existing table: its declared type when it takes numbers only (checkNumbers). */
  #numbersOnly: (string | null)[] = [];
  /** Per column: `temporalOf`'s bits of the values inserted (numbers count as other). */
  #temporal: number[] = [];

  constructor(conn: Connection, source: SourceShape, options: ImportOptions) {
    this.#conn = conn;
    this.#source = source;
    this.#options = options;
    this.#detect = options.detectTypes !== false;
    this.#inserter = new RowInserter(conn, options.flagHints !== false);
  }

  /** Rows inserted so far. */
  get #rows(): number {
    return this.#inserter.rows;
  }

  /** Takes the next batch: kept as the sample until there are enough rows, then inserted. */
  accept(batch: Batch): void {
    const sample = this.#sample;
    if (sample) {
      sample.push(batch);
      this.#sampled += isEncoded(batch) ? batch.rows : batch.length;
      if (this.#sampled < (this.#options.sampleRows ?? 10_000)) return;
      this.#setUp(sample);
      for (const rows of sample) this.#insert(rows);
      this.#sample = null;
    } else this.#insert(batch);
    this.#options.onProgress?.({ rows: this.#rows, bytes: this.#source.bytesRead });
  }

  /** After the last batch: the rows of a short source, the full-text index, and what was done. */
  end(): ImportResult {
    const sample = this.#sample;
    if (sample) {
      this.#sample = null;
      this.#setUp(sample);
      for (const rows of sample) this.#insert(rows);
    }
    if (this.#options.fts?.length) indexText(this.#conn, this.#options.table, this.#options.fts);
    else if (this.#rows) {
      // Rows plainly added after the mark are indexed alone; a replace, an upsert or a rebuilt
      // table (widened: its rowids may have changed) rebuilds the index.
      const { replace, upsert } = this.#options;
      const plain = this.#textMark && !replace && !upsert && !this.#widened;
      refreshTextIndex(
        this.#conn,
        this.#options.table,
        plain ? { mark: this.#textMark!, added: this.#rows } : null,
      );
    }
    this.#options.onProgress?.({ rows: this.#rows, bytes: this.#source.bytesRead });
    return {
      table: this.#options.table,
      rows: this.#rows,
      created: this.#created,
      columns: tableInfo(this.#conn, this.#options.table).map(({ name, type }) => ({
        name,
        type,
        column_type: this.#columnType(name),
      })),
    };
  }

  close(): void {
    this.#inserter.finalize();
  }

  /** The column type a TEXT column this import created gets from its values, or null. */
  #columnType(name: string): ImportColumnType | null {
    if (!this.#detect) return null;
    const i = this.#columns.findIndex((column) => column.name === name);
    return i >= 0 && this.#columns[i].type === "TEXT"
      ? temporalColumnType(this.#temporal[i] ?? 0)
      : null;
  }

  /** Creates the table from the sample, or checks the existing one against the file. */
  #setUp(sample: Batch[]): void {
    const names = this.#source.columns;
    const { table } = this.#options;
    const existing = tableInfo(this.#conn, table);
    if (!names.length) {
      // An empty JSON array appends nothing to a table; it cannot describe a new one.
      if (existing.length) return;
      throw new ImportError("The file holds no rows and no column names: nothing to import");
    }
    if (existing.length) this.#textMark = markTextIndex(this.#conn, table);
    if (existing.length && this.#options.continues) {
      ({ pks: this.#pks, columns: this.#columns } = continuedTable(
        this.#conn,
        table,
        this.#source.columns,
        existing,
      ));
    } else if (existing.length) {
      this.#pks = this.#options.pk?.length ? this.#options.pk : existing.filter((c) => c.pk)
        .sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const have = new Set(existing.map((column) => column.name.toLowerCase()));
      this.#columns = names.map((name) => ({ name, type: null }));
      if (this.#options.checkNumbers && !this.#source.typed) {
        const declared = new Map(
          existing.map((column) => [column.name.toLowerCase(), column.type]),
        );
        this.#numbersOnly = names.map((name) => {
          const type = declared.get(name.toLowerCase());
          return type && holdsNumbersOnly(type) ? type : null;
        });
      }
      this.#addColumns(names.filter((name) => !have.has(name.toLowerCase())), sample, 0);
    } else {
      this.#pks = this.#options.pk ?? [];
      this.#columns = names.map((name, i) => ({ name, type: this.#inferred(name, sample, i) }));
      this.#conn.exec(this.#createSql(table));
      this.#created = true;
    }
    this.#prepare();
  }

  /** The type of column `i` from the sample, or as the user chose. */
  #inferred(name: string, sample: Batch[], i: number): ImportType {
    const { types } = this.#options;
    return inferredType(name, sample, i, {
      types,
      detect: this.#detect,
      typed: this.#source.typed,
    });
  }

  #createSql(table: string): string {
    return columnsSql(table, this.#columns, this.#pks);
  }

  /**
   * Columns the table lacks: added when this import created the table or `--alter` allows it,
   * else an error naming them.
   */
  #addColumns(names: string[], sample: Batch[], from: number): void {
    if (!names.length) return;
    if (!this.#created && !this.#options.alter) {
      const list = names.map((name) => `"${name}"`).join(", ");
      const first = sample[0];
      const line = first && isEncoded(first) ? first.lines[0] : first?.[0]?.line;
      const hint = this.#options.flagHints === false ? "" : " (add missing columns with --alter)";
      throw new ImportError(
        `The table "${this.#options.table}" has no column ${list}${hint}`,
        { line: line ?? null },
      );
    }
    for (const name of names) {
      const i = this.#columns.findIndex((column) => column.name === name);
      const type = this.#inferred(name, sample, i >= 0 ? i : from);
      this.#conn.exec(
        `ALTER TABLE ${quoteName(this.#options.table)} ADD COLUMN ${quoteName(name)} ${type}`,
      );
      if (this.#created && i >= 0) this.#columns[i].type = type;
    }
  }

  #prepare(): void {
    const { table, replace, upsert } = this.#options;
    this.#inserter.prepare({
      table,
      columns: this.#columns.map((column) => column.name),
      pks: this.#pks,
      replace,
      upsert,
      realColumns: this.#columns.map((column) => this.#detect && column.type === "FLOAT"),
    });
  }

  #insert(records: Batch): void {
    if (isEncoded(records)) return this.#insertEncoded(records);
    for (const record of records) {
      if (record.values.length > this.#columns.length) {
        this.#inserter.flush();
        this.#newColumns(record);
      }
      // Converted before it is queued: widening a column flushes the rows queued before it.
      this.#inserter.add(this.#bindable(record), record.line);
    }
    this.#inserter.flush();
  }

  /**
   * Packed CSV rows: each value bound where it lies in their text, a whole statement's rows at a
   * time, the columns widened first where a row needs it.
   */
  #insertEncoded(rows: EncodedRows): void {
    this.#inserter.useText(rows);
    for (let i = 0; i < rows.width; i++) this.#temporal[i] |= rows.temporal[i];
    let from = 0;
    while (from < rows.rows) {
      const to = this.#firstToWiden(rows, from);
      this.#inserter.insertRange(rows, from, to);
      if (to === rows.rows) return;
      for (let i = 0, k = to * rows.width; i < rows.width; i++, k++) {
        const type = this.#columns[i].type!;
        if (rows.kinds[k] > kindOfType(type)) {
          this.#widen(i, typeOfKind(rows.kinds[k] as ValueKind));
        }
      }
      from = to;
    }
  }

  /** The first row from `from` on with a value its column cannot take as it is, or the end. */
  #firstToWiden(rows: EncodedRows, from: number): number {
    if (!this.#detect) return rows.rows;
    const { width, kinds, widest } = rows;
    // Columns of an existing table (no type of ours) are never widened.
    const limits = this.#columns.map((column) => column.type ? kindOfType(column.type) : 3);
    if (limits.every((limit, i) => widest[i] <= limit)) return rows.rows;
    for (let r = from; r < rows.rows; r++) {
      for (let i = 0; i < width; i++) if (kinds[r * width + i] > limits[i]) return r;
    }
    return rows.rows;
  }

  /** A JSON row with keys no earlier row had. */
  #newColumns(record: SourceRecord): void {
    const from = this.#columns.length;
    const names = this.#source.columns.slice(from);
    const have = new Set(
      tableInfo(this.#conn, this.#options.table).map((column) => column.name.toLowerCase()),
    );
    this.#columns.push(...names.map((name) => ({ name, type: null })));
    this.#addColumns(names.filter((name) => !have.has(name.toLowerCase())), [[record]], from);
    this.#prepare();
  }

  /** The row's values as they are stored, widening a column this import created if need be. */
  #bindable(record: SourceRecord): BindValue[] {
    const values = record.values;
    const out = this.#row;
    out.length = this.#columns.length;
    const typed = this.#source.typed;
    for (let i = 0; i < out.length; i++) {
      const value = values[i] ?? null;
      const type = this.#columns[i].type;
      let stored: unknown = value;
      if (value !== null && type !== null && this.#detect) {
        const kind = typed ? kindOfValue(value) : kindOfText(value as string);
        if (!(this.#temporal[i] & TEMPORAL_OTHER)) {
          this.#temporal[i] |= kind === 3 && typeof value === "string"
            ? temporalOf(value)
            : kind
            ? TEMPORAL_OTHER
            : 0;
        }
        if (kind > kindOfType(type)) this.#widen(i, typeOfKind(kind));
        if (!typed) stored = storedText(value as string, kind, this.#columns[i].type!);
      } else if (value !== null && this.#numbersOnly[i] && !readsAsNumber(value as string)) {
        throw new ImportError(
          `column ${this.#columns[i].name} is ${this.#numbersOnly[i]}: ` +
            `${JSON.stringify(value)} is not a number`,
          { line: record.line },
        );
      }
      out[i] = stored as BindValue;
    }
    return out;
  }

  /**
   * Rebuilds the table with column `i` of a wider type (inside the import's transaction). A FLOAT
   * column becoming TEXT writes its whole numbers as integers ("2", not "2.0"); other reals take
   * SQLite's text of the number, so "1.50" read before the widening comes back as "1.5".
   */
  #widen(i: number, type: ImportType): void {
    // The rows read before this one go in under the old type, as the rebuild expects.
    this.#inserter.flush();
    const old = this.#columns[i].type;
    this.#columns[i].type = type;
    this.#widened = true;
    this.#inserter.finalize();
    const table = this.#options.table;
    const temp = `${table}_vitrine_import`;
    rebuildWider(this.#conn, table, this.#createSql(temp), temp, this.#columns[i].name, old, type);
    this.#prepare();
  }
}
