/**
 * The SQL an import runs on its table besides inserting rows: reading its columns, rebuilding it
 * with a wider column type, keeping a `<table>_fts` index in step, and turning a refused row into
 * an error that names its line. `importer.ts` decides when; this module says how.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { SqliteError } from "../../sqlite/errors.ts";
import { quoteName } from "../write_values.ts";
import { ImportError } from "./import_error.ts";
import type { ImportType } from "./column_types.ts";

/** `PRAGMA table_info` of `table`: empty when there is no such table. */
export function tableInfo(
  conn: Connection,
  table: string,
): { name: string; type: string; pk: number }[] {
  return conn.query("select name, type, pk from pragma_table_info(?)", [table]).rows.map((
    row,
  ) => ({ name: String(row[0]), type: String(row[1]), pk: Number(row[2]) }));
}

/**
 * Rebuilds `table` as `createTemp` (its CREATE TABLE for `temp`) describes, with `column` widened
 * from `old` to `type`, inside the caller's transaction. A FLOAT column becoming TEXT writes its
 * whole numbers as integers ("2", not "2.0"); other reals take SQLite's text of the number.
 */
export function rebuildWider(
  conn: Connection,
  table: string,
  createTemp: string,
  temp: string,
  column: string,
  old: ImportType | null,
  type: ImportType,
): void {
  const widened = column.toLowerCase();
  const select = tableInfo(conn, table).map(({ name }) => {
    const q = quoteName(name);
    return name.toLowerCase() === widened && old === "FLOAT" && type === "TEXT"
      ? `CASE WHEN typeof(${q}) = 'real' AND ${q} = CAST(${q} AS INTEGER) ` +
        `THEN CAST(CAST(${q} AS INTEGER) AS TEXT) ELSE ${q} END`
      : q;
  });
  conn.exec(createTemp);
  conn.exec(`INSERT INTO ${quoteName(temp)} SELECT ${select.join(", ")} FROM ${quoteName(table)}`);
  conn.exec(`DROP TABLE ${quoteName(table)}`);
  conn.exec(`ALTER TABLE ${quoteName(temp)} RENAME TO ${quoteName(table)}`);
}

/** An existing external-content `<table>_fts` index is rebuilt, so it finds the new rows. */
export function refreshTextIndex(conn: Connection, table: string): void {
  const fts = `${table}_fts`;
  const sql = conn.query("select sql from sqlite_master where name = ?", [fts]).rows[0];
  if (typeof sql?.[0] === "string" && /content\s*=/i.test(sql[0])) {
    conn.exec(`INSERT INTO ${quoteName(fts)} (${quoteName(fts)}) VALUES ('rebuild')`);
  }
}

/** `<table>_fts` over `columns`, built (or rebuilt) from the table's rows. */
export function indexText(conn: Connection, table: string, columns: string[]): void {
  const have = new Map(tableInfo(conn, table).map((c) => [c.name.toLowerCase(), c.name]));
  const missing = columns.filter((column) => !have.has(column.toLowerCase()));
  if (missing.length) {
    throw new ImportError(`--fts names columns the table lacks: ${missing.join(", ")}`);
  }
  const fts = `${table}_fts`;
  const names = columns.map((column) => quoteName(have.get(column.toLowerCase())!));
  conn.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${quoteName(fts)} USING fts5 (${names.join(", ")}, ` +
      `content=${quoteName(table)})`,
  );
  conn.exec(`INSERT INTO ${quoteName(fts)} (${quoteName(fts)}) VALUES ('rebuild')`);
}

/** A failed row as an ImportError naming its line, with a hint for a repeated key. */
export function rowError(error: unknown, line: number, flagHints: boolean): Error {
  if (!(error instanceof SqliteError)) return error as Error;
  const repeated = /UNIQUE constraint failed|PRIMARY KEY/i.test(error.message);
  const hint = !repeated
    ? ""
    : flagHints
    ? " (a repeated key: use --replace or --upsert to overwrite)"
    : " (a repeated key)";
  return new ImportError(error.message + hint, { line, cause: error });
}
