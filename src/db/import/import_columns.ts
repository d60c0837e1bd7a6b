/**
 * The columns a new table gets from an import: each one's type from the first rows (or as the
 * user chose), the CREATE TABLE for them, and the check that a table an earlier part of the same
 * upload created is still as it was made. Apart from importer.ts so that the run of an import
 * reads as taking batches and inserting them.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { quoteName } from "../write_values.ts";
import { createTableSql } from "../table_writes.ts";
import { ImportError } from "./import_error.ts";
import type { SourceRecord } from "./records.ts";
import { type EncodedRows, isEncoded } from "./encoded_rows.ts";
import {
  type ImportType,
  kindOfText,
  kindOfValue,
  typeOfKind,
  type ValueKind,
} from "./column_types.ts";

/** One column of the table as the import sees it. */
export interface Column {
  name: string;
  /** Our type, for columns this import created (they may widen); null for existing columns. */
  type: ImportType | null;
}

/** What a source gives at a time: records, or CSV rows packed by the import worker. */
export type Batch = SourceRecord[] | EncodedRows;

/** How a column's type is decided: the user's choice, else (when detecting) from the values. */
export interface TypeChoice {
  /** Column types chosen by the user, by column name. */
  types?: Record<string, ImportType>;
  /** Infer types; off, every new column is TEXT. */
  detect: boolean;
  /** The source gives typed values (JSON), not text (CSV). */
  typed: boolean;
}

/** The type of column `i` (named `name`) from the sample, or as the user chose. */
export function inferredType(
  name: string,
  sample: Batch[],
  i: number,
  choice: TypeChoice,
): ImportType {
  const chosen = choice.types?.[name];
  if (chosen) return chosen;
  if (!choice.detect) return "TEXT";
  let widest: ValueKind = 0;
  for (const batch of sample) {
    if (isEncoded(batch)) {
      if (i < batch.width && batch.widest[i] > widest) widest = batch.widest[i] as ValueKind;
      continue;
    }
    for (const record of batch) {
      const kind = kindOf(record.values[i], choice.typed);
      if (kind > widest) widest = kind;
      if (widest === 3) break;
    }
    if (widest === 3) break;
  }
  return typeOfKind(widest);
}

function kindOf(value: unknown, typed: boolean): ValueKind {
  if (value === null || value === undefined) return 0;
  return typed ? kindOfValue(value) : kindOfText(value as string);
}

/** The CREATE TABLE for the import's columns (TEXT where the type is not ours) and key. */
export function columnsSql(table: string, columns: readonly Column[], pks: string[]): string {
  return createTableSql(
    table,
    columns.map((column) => ({ name: column.name, type: column.type ?? "TEXT" })),
    pks,
  );
}

/**
 * Takes up a table an earlier part of the file created: its columns keep their import types
 * (and may widen), when the table is still as the importer made it; an ImportError otherwise.
 */
export function continuedTable(
  conn: Connection,
  table: string,
  names: readonly string[],
  existing: { name: string; type: string; pk: number }[],
): { pks: string[]; columns: Column[] } {
  const byName = new Map(existing.map((column) => [column.name.toLowerCase(), column]));
  const changed = new ImportError(
    `The table "${table}" is no longer as this upload created it (its columns, types or ` +
      "key changed, or it has an index or trigger): its remaining rows cannot be added",
  );
  const pks = existing.filter((c) => c.pk).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  const columns: Column[] = names.map((name) => {
    const type = byName.get(name.toLowerCase())?.type;
    if (type !== "INTEGER" && type !== "FLOAT" && type !== "TEXT") throw changed;
    return { name, type };
  });
  const expected = columnsSql(table, columns, pks);
  const body = expected.slice(`CREATE TABLE ${quoteName(table)}`.length);
  const sql = conn.query(
    "select sql from sqlite_master where type = 'table' and name = ?",
    [table],
  ).rows[0]?.[0];
  const others = conn.query(
    "select count(*) from sqlite_master where tbl_name = ? and type in ('index', 'trigger') " +
      "and sql is not null",
    [table],
  ).rows[0][0];
  // A rename (after a widening) requotes the table's name; the columns are what must match.
  if (typeof sql !== "string" || !sql.endsWith(body) || Number(others)) throw changed;
  return { pks, columns };
}
