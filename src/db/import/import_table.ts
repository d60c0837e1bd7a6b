/**
 * The SQL an import runs on its table besides inserting rows: reading its columns, rebuilding it
 * with a wider column type, keeping a `<table>_fts` index in step, and turning a refused row into
 * an error that names its line. `importer.ts` decides when; this module says how.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { SqliteError } from "../../sqlite/errors.ts";
import type { SqlValue } from "../../sqlite/values.ts";
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

/** True when `table` keeps its rows by rowid (it is no WITHOUT ROWID table). */
function keepsRowid(conn: Connection, table: string): boolean {
  const row = conn.query(
    "select wr from pragma_table_list where schema = 'main' and name = ?",
    [table],
  ).rows[0];
  return row !== undefined && row[0] === 0;
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
  const info = tableInfo(conn, table);
  const select = info.map(({ name }) => {
    const q = quoteName(name);
    return name.toLowerCase() === widened && old === "FLOAT" && type === "TEXT"
      ? `CASE WHEN typeof(${q}) = 'real' AND ${q} = CAST(${q} AS INTEGER) ` +
        `THEN CAST(CAST(${q} AS INTEGER) AS TEXT) ELSE ${q} END`
      : q;
  });
  conn.exec(createTemp);
  // Rowids are what row pages, the history's records and full-text indexes point at: kept (an
  // INTEGER PRIMARY KEY is the rowid and copied with the columns; a WITHOUT ROWID table has none).
  const names = info.map(({ name }) => name.toLowerCase());
  const rowid = keepsRowid(conn, table)
    ? ["rowid", "_rowid_", "oid"].find((alias) => !names.includes(alias))
    : undefined;
  const columns = info.map(({ name }) => quoteName(name));
  const into = rowid ? `(${[rowid, ...columns].join(", ")})` : `(${columns.join(", ")})`;
  const from = rowid ? [rowid, ...select] : select;
  conn.exec(
    `INSERT INTO ${quoteName(temp)} ${into} SELECT ${from.join(", ")} FROM ${quoteName(table)}`,
  );
  conn.exec(`DROP TABLE ${quoteName(table)}`);
  conn.exec(`ALTER TABLE ${quoteName(temp)} RENAME TO ${quoteName(table)}`);
}

/** The `content=` option of an FTS5 declaration: a name, quoted any way SQLite takes. */
const CONTENT = /\bcontent\s*=\s*("(?:[^"]|"")*"|'(?:[^']|'')*'|\[[^\]]*\]|`[^`]*`|[^\s,)]+)/i;

/** The name `text` quotes (`"a""b"` → `a"b`), or `text` itself. */
function unquoted(text: string): string {
  const open = text[0];
  if (open === "[") return text.slice(1, -1);
  if (open !== '"' && open !== "'" && open !== "`") return text;
  return text.slice(1, -1).replaceAll(open + open, open);
}

/**
 * Where the rows an import adds to `table` will start, for its external-content `<table>_fts`
 * index: the index's columns and the table's largest rowid before the import (null: the table is
 * empty). Read before the import inserts. Null when there is no such index or it cannot be
 * followed row by row: its content is another table, or keyed by a `content_rowid` column, or a
 * trigger on the table writes to it (the trigger already indexes each row).
 */
export interface TextIndexMark {
  fts: string;
  columns: string[];
  after: SqlValue;
}

/** {@link TextIndexMark} of `table`, or null. */
export function markTextIndex(conn: Connection, table: string): TextIndexMark | null {
  const fts = `${table}_fts`;
  const sql = conn.query("select sql from sqlite_master where name = ?", [fts]).rows[0]?.[0];
  if (typeof sql !== "string" || /\bcontent_rowid\s*=/i.test(sql)) return null;
  const content = CONTENT.exec(sql)?.[1];
  if (!content || unquoted(content).toLowerCase() !== table.toLowerCase()) return null;
  const triggers = conn.query(
    "select count(*) from sqlite_master where type = 'trigger' and tbl_name = ? collate nocase " +
      "and instr(lower(sql), lower(?)) > 0",
    [table, fts],
  ).rows[0][0];
  if (Number(triggers)) return null;
  const columns = tableInfo(conn, fts).map((column) => column.name);
  try {
    const after = conn.query(`select max(rowid) from ${quoteName(table)}`).rows[0][0];
    return { fts, columns, after };
  } catch {
    return null; // a table without rowids, which an FTS5 content table cannot be
  }
}

/**
 * An existing external-content `<table>_fts` index made to find the import's rows. With `since`
 * (the mark read before, and how many rows the import plainly inserted: no replace, upsert or
 * rebuild of the table), only the rows after the mark are indexed, when they are exactly those
 * rows; an upload sends a file in parts, and rebuilding the index of the whole table after each
 * part made the file's upload time grow with the square of its size. Otherwise it is rebuilt.
 */
export function refreshTextIndex(
  conn: Connection,
  table: string,
  since: { mark: TextIndexMark; added: number } | null = null,
): void {
  const fts = `${table}_fts`;
  if (since) {
    const { mark, added } = since;
    const where = mark.after === null ? "" : " WHERE rowid > ?";
    const params = mark.after === null ? [] : [mark.after];
    const from = `FROM ${quoteName(table)}${where}`;
    // Rows with a rowid below the mark (a file's own lower keys) would be missed: rebuild then.
    if (Number(conn.query(`SELECT count(*) ${from}`, params).rows[0][0]) === added) {
      const columns = mark.columns.map(quoteName).join(", ");
      conn.run(
        `INSERT INTO ${quoteName(mark.fts)} (rowid, ${columns}) SELECT rowid, ${columns} ${from}`,
        params,
      );
      return;
    }
  }
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
