/**
 * Checks a row write must pass beyond what SQLite refuses on its own: a value that SQLite would
 * keep as text in a column declared for numbers (`"abc"` for `INTEGER Milliseconds`) is a
 * client mistake, not data; and a foreign key SQLite reports only as "FOREIGN KEY constraint
 * failed" is explained with the column, the value and the table it should point into, or with
 * the rows that still point at a row being deleted. NOT NULL and CHECK are SQLite's own (their
 * messages name the column or the constraint). Every check runs inside the write's transaction,
 * so a batch with one bad row writes nothing.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { SqliteError } from "../sqlite/errors.ts";
import type { BindValue } from "../sqlite/values.ts";
import {
  bindable,
  quoteName,
  RowWriteError,
  type Statements,
  type WriteRow,
} from "./write_values.ts";

/** "row 3: column x…" in a batch, "Column x…" for a single row (`label` is "" then). */
function withLabel(label: string, message: string): string {
  return label ? `${label}: ${message}` : message[0].toUpperCase() + message.slice(1);
}

/**
 * Text SQLite reads as a number under numeric affinity (surrounding spaces allowed). Only used to
 * word an error SQLite already raised; what is stored is always asked of SQLite (`typeof`).
 */
const NUMBER_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** True for text SQLite stores as a number in a column of numeric affinity. */
export function readsAsNumber(text: string): boolean {
  return NUMBER_TEXT.test(text);
}

/** SQLITE_CONSTRAINT_FOREIGNKEY: an immediate foreign key failed. */
const FOREIGN_KEY_FAILED = 787;

/** SQLite's type affinity of a declared type (datatype3.html §3.1). */
export function typeAffinity(declared: string): "INTEGER" | "TEXT" | "BLOB" | "REAL" | "NUMERIC" {
  const type = declared.toUpperCase();
  if (type.includes("INT")) return "INTEGER";
  if (/CHAR|CLOB|TEXT/.test(type)) return "TEXT";
  if (type === "" || type.includes("BLOB")) return "BLOB";
  if (/REAL|FLOA|DOUB/.test(type)) return "REAL";
  return "NUMERIC";
}

/**
 * True when a column declared `declared` is meant for numbers only: INTEGER and REAL affinity,
 * and NUMERIC affinity when the type says NUMERIC or DECIMAL. Other NUMERIC-affinity types are
 * how SQLite files commonly hold text (`DATETIME`, `DATE`, `BOOLEAN`, `JSON`), and `POINT` (INT
 * in its name) is a SpatiaLite geometry: text there is data, not a mistake.
 */
export function holdsNumbersOnly(declared: string): boolean {
  const affinity = typeAffinity(declared);
  if (affinity === "INTEGER") return !/POINT/i.test(declared);
  if (affinity === "REAL") return true;
  return affinity === "NUMERIC" && /NUM|DEC/i.test(declared);
}

/** One outgoing foreign key: `columns` of this table point at `others` of `table`. */
interface OutgoingKey {
  table: string;
  columns: string[];
  others: string[];
}

/** One incoming foreign key: `columns` of `table` point at `others` of this table. */
interface IncomingKey {
  table: string;
  columns: string[];
  others: string[];
}

/** The checks of one table's writes, read from the live schema once per write. */
export class RowChecks {
  readonly #conn: Connection;
  readonly #table: string;
  /** Lower-cased name → declared type, for the columns meant for numbers only. */
  readonly #numeric = new Map<string, { name: string; type: string }>();
  #outgoing: OutgoingKey[] | null = null;

  readonly #statements: Statements;

  /** The checks of `table`'s writes; `statements` (the write's own) runs the per-row reads. */
  constructor(conn: Connection, table: string, statements: Statements) {
    this.#conn = conn;
    this.#table = table;
    this.#statements = statements;
    const rows = conn.query("select name, type from pragma_table_info(?)", [table]).rows;
    for (const [name, type] of rows) {
      const declared = String(type ?? "");
      if (holdsNumbersOnly(declared)) {
        this.#numeric.set(String(name).toLowerCase(), { name: String(name), type: declared });
      }
    }
  }

  /**
   * After `row` was written to the row found by `where` and `key`: a column of numeric affinity
   * given a value SQLite kept as text or a BLOB is refused, naming the column and the value.
   */
  storedTypes(row: WriteRow, where: string, key: BindValue[], label: string): void {
    const given = Object.keys(row).filter((column) =>
      this.#numeric.has(column.toLowerCase()) && row[column] !== null && row[column] !== undefined
    );
    if (!given.length) return;
    const types = given.map((column) => `typeof(${quoteName(column)})`).join(", ");
    // The write's prepared statements: a batch of rows of one shape prepares this once.
    const stored = this.#statements.all(
      `SELECT ${types} FROM ${quoteName(this.#table)} WHERE ${where}`,
      key,
    )[0];
    if (!stored) return;
    given.forEach((column, i) => {
      if (stored[i] === "text" || stored[i] === "blob") {
        throw new RowWriteError(withLabel(label, this.#notNumberText(row, column)));
      }
    });
  }

  /** The message for a numeric column of `row` given text that is no number, or null. */
  #notNumber(row: WriteRow): string | null {
    for (const column of Object.keys(row)) {
      if (!this.#numeric.has(column.toLowerCase())) continue;
      const value = bindable(row[column]);
      if (typeof value === "string" && !NUMBER_TEXT.test(value)) {
        return this.#notNumberText(row, column);
      }
    }
    return null;
  }

  #notNumberText(row: WriteRow, column: string): string {
    const { name, type } = this.#numeric.get(column.toLowerCase())!;
    const value = JSON.stringify(shown(bindable(row[column])));
    return `column ${name} is ${type}: ${value} is not a number`;
  }

  /**
   * Runs `body`; a foreign key failure comes out as a RowWriteError saying which column of `row`
   * points at nothing, else what `otherwise` says (rows pointing at a key being changed), else
   * SQLite's own message.
   */
  foreignKeys<T>(
    row: WriteRow | null,
    label: string,
    body: () => T,
    otherwise: () => string | null = () => null,
  ): T {
    try {
      return body();
    } catch (error) {
      if (!isForeignKeyFailure(error) || !row) throw error;
      // "two" for an INTEGER key points at nothing because it is no number: say that first.
      const problem = this.#notNumber(row) ?? this.missingParent(row) ?? otherwise() ??
        error.message;
      throw new RowWriteError(withLabel(label, problem), { cause: error });
    }
  }

  /** "column AlbumId: 99999 matches no AlbumId in Album" for the first key of `row` that does. */
  missingParent(row: WriteRow): string | null {
    const given = new Map(Object.keys(row).map((column) => [column.toLowerCase(), column]));
    for (const key of this.#outgoingKeys()) {
      const columns = key.columns.map((column) => given.get(column.toLowerCase()));
      if (columns.some((column) => column === undefined)) continue;
      const values = columns.map((column) => bindable(row[column!]));
      if (values.some((value) => value === null)) continue;
      const where = key.others.map((other) => `${quoteName(other)} = ?`).join(" AND ");
      const found = this.#conn.query(
        `SELECT 1 FROM ${quoteName(key.table)} WHERE ${where} LIMIT 1`,
        values,
      ).rows.length;
      if (found) continue;
      const named = key.columns.join(", ");
      const value = values.map((v) => JSON.stringify(shown(v))).join(", ");
      return `column ${named}: ${value} matches no ${key.others.join(", ")} in ${key.table}`;
    }
    return null;
  }

  #outgoingKeys(): OutgoingKey[] {
    this.#outgoing ??= outgoingKeys(this.#conn, this.#table);
    return this.#outgoing;
  }
}

/** True for SQLite's "FOREIGN KEY constraint failed". */
export function isForeignKeyFailure(error: unknown): error is SqliteError {
  return error instanceof SqliteError && error.extendedCode === FOREIGN_KEY_FAILED;
}

/** Outgoing foreign keys of `table`, compound ones as one key; `others` default to the key. */
function outgoingKeys(conn: Connection, table: string): OutgoingKey[] {
  const rows = conn.query(
    `select id, "table", "from", "to" from pragma_foreign_key_list(?) order by id, seq`,
    [table],
  ).rows;
  const keys = new Map<number, OutgoingKey>();
  for (const [id, other, from, to] of rows) {
    let key = keys.get(Number(id));
    if (!key) keys.set(Number(id), key = { table: String(other), columns: [], others: [] });
    key.columns.push(String(from));
    key.others.push(to === null ? "" : String(to));
  }
  for (const key of keys.values()) {
    if (key.others.every((other) => other !== "")) continue;
    const pks = primaryKeyOf(conn, key.table);
    key.others = key.others.map((other, i) => other || pks[i] || "rowid");
  }
  return [...keys.values()];
}

function primaryKeyOf(conn: Connection, table: string): string[] {
  return conn.query("select name from pragma_table_info(?) where pk > 0 order by pk", [table])
    .rows.map((row) => String(row[0]));
}

/** Foreign keys of other tables (and this one) that point at `table`. */
function incomingKeys(conn: Connection, table: string): IncomingKey[] {
  const tables = conn.query("select name from sqlite_master where type = 'table'").rows
    .map((row) => String(row[0]));
  const keys: IncomingKey[] = [];
  for (const other of tables) {
    let outgoing: OutgoingKey[];
    try {
      outgoing = outgoingKeys(conn, other);
    } catch {
      continue; // a virtual table whose module is missing has no foreign keys to read
    }
    for (const key of outgoing) {
      if (key.table.toLowerCase() !== table.toLowerCase()) continue;
      keys.push({ table: other, columns: key.columns, others: key.others });
    }
  }
  return keys;
}

/** Rows of one table that point at a row. */
export interface Referrers {
  /** The table holding the references. */
  table: string;
  /** Its columns that hold them. */
  columns: string[];
  /** How many of its rows point at the row. */
  count: number;
}

/**
 * The rows that point at the row of `table` found by `where` and `key`, per referring table and
 * key (tables with no such rows left out).
 */
export function referrers(
  conn: Connection,
  table: string,
  where: string,
  key: BindValue[],
): Referrers[] {
  const found: Referrers[] = [];
  for (const incoming of incomingKeys(conn, table)) {
    const target = conn.query(
      `SELECT ${incoming.others.map(quoteName).join(", ")} FROM ${quoteName(table)} ` +
        `WHERE ${where}`,
      key,
    ).rows[0];
    if (!target || target.some((value) => value === null)) continue;
    const match = incoming.columns.map((column) => `${quoteName(column)} = ?`).join(" AND ");
    const count = Number(
      conn.query(`SELECT count(*) FROM ${quoteName(incoming.table)} WHERE ${match}`, target)
        .rows[0][0],
    );
    if (count > 0) found.push({ table: incoming.table, columns: incoming.columns, count });
  }
  return found;
}

/** "130 rows in Track (GenreId)", joined with "and". */
export function referrersText(found: Referrers[]): string {
  return found.map((r) =>
    `${r.count === 1 ? "1 row" : `${r.count} rows`} in ${r.table} (${r.columns.join(", ")})`
  ).join(" and ");
}

/** A value as a message shows it: long text cut short. */
function shown(value: unknown): unknown {
  if (typeof value === "string" && value.length > 60) return `${value.slice(0, 57)}...`;
  if (typeof value === "bigint") return value.toString();
  return value;
}
