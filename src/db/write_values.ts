/**
 * Shared pieces of the row and table writes behind the JSON write API: identifier quoting, how a
 * JSON value is bound, column types inferred from values, prepared statements reused within one
 * write, and the error that marks a write the client got wrong.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Statement } from "../sqlite/statement.ts";
import { SqliteError } from "../sqlite/errors.ts";
import type { BindValue } from "../sqlite/values.ts";
import { exactJsonText, JsonReal } from "../util/exact_json.ts";
import { StatusError } from "../util/errors.ts";

/** A row as the write API receives it: column name → JSON value. */
export type WriteRow = Record<string, unknown>;

/** A write refused because of what the client sent (constraint, unknown column…): a 400. */
export class RowWriteError extends StatusError {
  override name = "RowWriteError";

  /** Builds the error with the message the client sees (`cause`: SQLite's error, if any). */
  constructor(message: string, options: ErrorOptions = {}) {
    super(400, message, { cause: options.cause });
  }
}

// SQLite result codes that describe the statement or its data rather than the server:
// SQLITE_ERROR, SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_RANGE.
const CLIENT_CODES = new Set([1, 18, 19, 20, 25]);

/**
 * Runs `body`; SQLite's complaints about the data (and values SQLite cannot hold) come out as
 * {@link RowWriteError} with SQLite's own message. Busy, I/O and other server-side failures pass
 * through unchanged.
 */
export function clientErrors<T>(body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof SqliteError && CLIENT_CODES.has(error.code)) {
      throw new RowWriteError(error.message, { cause: error });
    }
    if (error instanceof RangeError) throw new RowWriteError(error.message, { cause: error });
    throw error;
  }
}

/** `[name]`, or `"name"` when the name holds a `]` that brackets cannot quote. */
export function quoteName(name: string): string {
  return name.includes("]") ? `"${name.replaceAll('"', '""')}"` : `[${name}]`;
}

/** The SQL placeholder for `value`: a REAL written as `1.0` must not be stored as INTEGER 1. */
export function placeholder(value: unknown): string {
  return value instanceof JsonReal ? "CAST(? AS REAL)" : "?";
}

/** The value to bind: objects and arrays are stored as JSON text, as the reference does. */
export function bindable(value: unknown): BindValue {
  if (value === null || value === undefined) return null;
  if (value instanceof JsonReal) return value.value;
  switch (typeof value) {
    case "number":
    case "bigint":
    case "string":
    case "boolean":
      return value;
  }
  return exactJsonText(value);
}

/** The type a new column gets from the values it will hold. */
export type ColumnType = "INTEGER" | "FLOAT" | "TEXT" | "BLOB";

function typeOfValue(value: unknown): ColumnType | null {
  if (value === null || value === undefined) return null;
  if (value instanceof JsonReal) return "FLOAT";
  switch (typeof value) {
    case "bigint":
    case "boolean":
      return "INTEGER";
    case "number":
      return Number.isInteger(value) ? "INTEGER" : "FLOAT";
  }
  return value instanceof Uint8Array ? "BLOB" : "TEXT";
}

/**
 * The column type for `values`: INTEGER for whole numbers and booleans, FLOAT once a float
 * appears, TEXT for strings, objects and lists or any mixture with them; TEXT when all are null.
 */
export function inferColumnType(values: Iterable<unknown>): ColumnType {
  let type: ColumnType | null = null;
  for (const value of values) {
    const next = typeOfValue(value);
    if (next === null || next === type) continue;
    if (type === null) type = next;
    else if (isNumeric(type) && isNumeric(next)) type = "FLOAT";
    else type = "TEXT";
  }
  return type ?? "TEXT";
}

function isNumeric(type: ColumnType): boolean {
  return type === "INTEGER" || type === "FLOAT";
}

/** Column names of `rows` in the order they first appear. */
export function columnsOf(rows: readonly WriteRow[]): string[] {
  const seen = new Map<string, string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      const folded = key.toLowerCase();
      if (!seen.has(folded)) seen.set(folded, key);
    }
  }
  return [...seen.values()];
}

/** Every value `rows` give column `name` (matched without case, as SQLite matches names). */
export function columnValues(rows: readonly WriteRow[], name: string): unknown[] {
  const folded = name.toLowerCase();
  const values: unknown[] = [];
  for (const row of rows) {
    for (const key of Object.keys(row)) if (key.toLowerCase() === folded) values.push(row[key]);
  }
  return values;
}

/**
 * Prepared statements reused across the rows of one write; `close()` hands them back to the
 * connection, which keeps them for the next write of the same SQL (the same table, columns and
 * kinds of values): compiling an INSERT and its type check again for each request cost more than
 * writing a few rows. A schema change in between is SQLite's to notice: it compiles a kept
 * statement again from its text when it next runs.
 */
export class Statements {
  #conn: Connection;
  #cache = new Map<string, Statement>();

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** Runs `sql` with `params`; returns the rows it produced. */
  all(sql: string, params: BindValue[]): unknown[][] {
    const statement = this.#statement(sql);
    statement.bind(params);
    const rows = statement.all();
    statement.reset();
    return rows;
  }

  /** Runs a writing statement; returns the number of rows it changed. */
  run(sql: string, params: BindValue[]): number {
    const statement = this.#statement(sql);
    // bind() resets the statement, and a statement that ran to its end holds nothing.
    statement.bind(params);
    while (statement.step()) { /* RETURNING rows are not needed */ }
    return this.#conn.changes;
  }

  /** Column names `sql` produces: ask once it ran (a kept statement may be compiled again then). */
  columns(sql: string): string[] {
    return this.#statement(sql).columns();
  }

  #statement(sql: string): Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.#conn.borrow(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  /** Hands every statement back to the connection (see the class comment). */
  close(): void {
    for (const statement of this.#cache.values()) this.#conn.giveBack(statement);
    this.#cache.clear();
  }
}

/** The current columns of `table` on this connection (not a cached answer: ALTER may run). */
export function liveColumns(conn: Connection, table: string): string[] {
  return conn.query("select name from pragma_table_info(?)", [table]).rows.map((row) =>
    String(row[0])
  );
}

/** True for a `WITHOUT ROWID` table, whose rows can only be found again by primary key. */
export function isWithoutRowid(conn: Connection, table: string): boolean {
  const sql = conn.query("select sql from sqlite_master where type = 'table' and name = ?", [
    table,
  ]).rows[0]?.[0];
  return typeof sql === "string" && /\bwithout\s+rowid\b/i.test(sql);
}
