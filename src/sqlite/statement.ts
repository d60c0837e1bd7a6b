/**
 * `Statement`: one prepared SQL statement. Rows are arrays, read with the fast paths described in
 * values.ts.
 *
 * @module
 */

import {
  SQLITE_DONE,
  SQLITE_ROW,
  SQLITE_STMTSTATUS_REPREPARE,
  SQLITE_TOOBIG,
} from "./constants.ts";
import { errorFor, SqliteError } from "./errors.ts";
import { readCString, sqlite } from "./ffi.ts";
import { type CellBatch, readRowCells } from "./cell_batch.ts";
import {
  type BindParams,
  bindTextAt,
  type BindValue,
  bindValue,
  parameterName,
  readColumn,
  SEEN_REAL,
  type SqlValue,
} from "./values.ts";

/** What a statement needs to know about its connection. */
export interface ConnectionState {
  /** The `sqlite3*` handle. */
  readonly db: Deno.PointerValue;
  /** False once the connection is closed. */
  open: boolean;
  /**
   * Set while the visitor limits and authorizer are still applied after restricted work ended
   * (`Connection.restricted` leaves them on for the next restricted query): anything about to
   * compile or step a statement outside restricted work calls it first, which takes them off.
   */
  release: (() => void) | null;
}

// Safety net for statements the caller forgets to finalize. The connection is closed with
// sqlite3_close_v2, which keeps it alive as a zombie until its last statement is finalized, so a
// late finalize from here is always safe.
const leakedStatements = new FinalizationRegistry<Deno.PointerValue>((pointer) => {
  sqlite().sqlite3_finalize(pointer);
});

/** A prepared statement. `prepare()` of empty SQL gives a statement that returns no rows. */
export class Statement {
  #state: ConnectionState;
  #pointer: Deno.PointerValue;
  #columnCount: number;
  #parameterCount: number;
  #parameterNames: (string | null)[] | undefined;
  #finalized = false;
  /** Storage classes of the numbers read per column since the last reset (`readColumn`). */
  #seen = new Uint8Array(0);
  /** SQL text left over after the first statement (only whitespace/comments for one statement). */
  readonly tail: string;

  /** Wraps a `sqlite3_stmt*`; use `Connection.prepare()` rather than calling this. */
  constructor(state: ConnectionState, pointer: Deno.PointerValue, tail = "") {
    this.#state = state;
    this.#pointer = pointer;
    this.tail = tail;
    const lib = sqlite();
    this.#columnCount = pointer === null ? 0 : lib.sqlite3_column_count(pointer);
    this.#parameterCount = pointer === null ? 0 : lib.sqlite3_bind_parameter_count(pointer);
    if (pointer !== null) leakedStatements.register(this, pointer, this);
  }

  /** The raw `sqlite3_stmt*` (null for empty SQL). */
  get pointer(): Deno.PointerValue {
    return this.#pointer;
  }

  /**
   * How many times SQLite compiled the statement again by itself, on its way to run it: after a
   * schema change, or after something expired the connection's statements (setting an authorizer
   * does).
   */
  get recompiles(): number {
    if (this.#pointer === null) return 0;
    return sqlite().sqlite3_stmt_status(this.#pointer, SQLITE_STMTSTATUS_REPREPARE, 0);
  }

  /** True when the statement does not write to the database. */
  get readonly(): boolean {
    return this.#pointer === null || sqlite().sqlite3_stmt_readonly(this.#pointer) !== 0;
  }

  /** Number of bind parameters (the largest `?NNN` index). */
  get parameterCount(): number {
    return this.#parameterCount;
  }

  /** Result column names. */
  columns(): string[] {
    const lib = sqlite();
    if (this.#pointer !== null) this.#columnCount = lib.sqlite3_column_count(this.#pointer);
    const names: string[] = [];
    for (let i = 0; i < this.#columnCount; i++) {
      names.push(readCString(lib.sqlite3_column_name(this.#pointer, i)) ?? "");
    }
    return names;
  }

  /**
   * Where each result column comes from: `{schema, table, column}` for a plain copy of a table
   * column, null for an expression, and null for every column when the library lacks column
   * metadata (SQLITE_ENABLE_COLUMN_METADATA).
   */
  columnOrigins(): ({ schema: string; table: string; column: string } | null)[] {
    const lib = sqlite();
    const count = this.#pointer === null ? 0 : lib.sqlite3_column_count(this.#pointer);
    const { sqlite3_column_table_name, sqlite3_column_origin_name, sqlite3_column_database_name } =
      lib;
    if (
      !sqlite3_column_table_name || !sqlite3_column_origin_name || !sqlite3_column_database_name
    ) {
      return Array(count).fill(null);
    }
    const origins = [];
    for (let i = 0; i < count; i++) {
      const table = readCString(sqlite3_column_table_name(this.#pointer, i));
      const column = readCString(sqlite3_column_origin_name(this.#pointer, i));
      const schema = readCString(sqlite3_column_database_name(this.#pointer, i));
      origins.push(table && column && schema ? { schema, table, column } : null);
    }
    return origins;
  }

  /** Declared types of the result columns (null for expressions). */
  declaredTypes(): (string | null)[] {
    const lib = sqlite();
    const types: (string | null)[] = [];
    for (let i = 0; i < this.#columnCount; i++) {
      types.push(readCString(lib.sqlite3_column_decltype(this.#pointer, i)));
    }
    return types;
  }

  /**
   * Resets the statement and binds `params`: an array binds by position (`?`, `?NNN`), an object
   * by name without prefix; parameters without a value bind NULL.
   */
  bind(params?: BindParams): this {
    this.#assertUsable();
    if (this.#pointer === null) return this;
    const lib = sqlite();
    lib.sqlite3_reset(this.#pointer);
    lib.sqlite3_clear_bindings(this.#pointer);
    this.#seen.fill(0);
    if (params === undefined || params === null) return this;
    if (Array.isArray(params)) {
      const count = Math.min(params.length, this.#parameterCount);
      for (let i = 0; i < count; i++) this.#bindOne(i + 1, params[i]);
    } else {
      const names = this.#names();
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (name !== null && Object.hasOwn(params, name)) this.#bindOne(i + 1, params[name]);
      }
    }
    return this;
  }

  #bindOne(index: number, value: BindValue): void {
    const rc = bindValue(this.#pointer, index, value);
    if (rc !== 0) throw errorFor(this.#state.db, rc);
  }

  /**
   * Binds one value at 1-based `index`, after `bind()` reset the statement (the parameters not
   * bound stay NULL): for callers that bind values from where they lie, without an array.
   */
  bindAt(index: number, value: BindValue): void {
    this.#bindOne(index, value);
  }

  /**
   * Binds the UTF-8 text of `length` bytes at `address` at `index`, without a copy: the buffer
   * it lies in stays alive and unchanged until this statement has been stepped and bound again
   * (values.ts {@link bindTextAt}).
   */
  bindTextAt(index: number, address: bigint, length: number): void {
    const rc = bindTextAt(this.#pointer, index, address, length);
    if (rc !== 0) throw errorFor(this.#state.db, rc);
  }

  #names(): (string | null)[] {
    if (this.#parameterNames) return this.#parameterNames;
    const names: (string | null)[] = [];
    for (let i = 1; i <= this.#parameterCount; i++) names.push(parameterName(this.#pointer, i));
    return (this.#parameterNames = names);
  }

  /** Advances to the next row; false when done. Throws SqliteError (and resets) on failure. */
  step(): boolean {
    this.#assertUsable();
    if (this.#pointer === null) return false;
    const rc = sqlite().sqlite3_step(this.#pointer);
    if (rc === SQLITE_ROW) return true;
    if (rc === SQLITE_DONE) return false;
    const error = errorFor(this.#state.db, rc);
    sqlite().sqlite3_reset(this.#pointer);
    throw error;
  }

  /** The current row as an array. */
  values(): SqlValue[] {
    const row = new Array<SqlValue>(this.#columnCount);
    if (this.#seen.length !== this.#columnCount) this.#seen = new Uint8Array(this.#columnCount);
    const seen = this.#seen;
    for (let i = 0; i < this.#columnCount; i++) row[i] = readColumn(this.#pointer, i, seen);
    return row;
  }

  /**
   * Indexes of the columns whose numbers, in the rows read since the statement was last reset,
   * were all stored as REAL (at least one): their whole numbers are written `12.0`, as Python
   * writes a float. Columns holding both INTEGER and REAL values are left out.
   */
  realColumns(): number[] {
    const real: number[] = [];
    for (let i = 0; i < this.#seen.length; i++) if (this.#seen[i] === SEEN_REAL) real.push(i);
    return real;
  }

  /**
   * Steps through the remaining rows (at most `maxRows`) and returns them. When the text and
   * BLOB values read add up to more than `maxBytes` (text counted in characters), throws a
   * SqliteError with code SQLITE_TOOBIG instead of holding more.
   */
  all(maxRows = Infinity, maxBytes = Infinity): SqlValue[][] {
    const rows: SqlValue[][] = [];
    // A statement compiled before a schema change is recompiled by its first step, and
    // `select *` may then have more or fewer columns: counted again once a row is there.
    if (rows.length < maxRows && this.step()) {
      this.#columnCount = sqlite().sqlite3_column_count(this.#pointer);
    } else return rows;
    if (maxBytes === Infinity) {
      rows.push(this.values());
      while (rows.length < maxRows && this.step()) rows.push(this.values());
      return rows;
    }
    let bytes = 0;
    let more = true;
    while (more) {
      const row = this.values();
      for (let i = 0; i < row.length; i++) {
        const value = row[i];
        if (typeof value === "string") bytes += value.length;
        else if (value instanceof Uint8Array) bytes += value.byteLength;
      }
      if (bytes > maxBytes) {
        this.reset();
        throw new SqliteError(`Result larger than ${maxBytes} bytes`, SQLITE_TOOBIG);
      }
      rows.push(row);
      more = rows.length < maxRows && this.step();
    }
    return rows;
  }

  /**
   * Steps through the remaining rows (at most `maxRows`) into `batch` as cells, dropping the rows
   * it held. Answers why it stopped: `"full"`, `"done"` (no rows left), or `"blob"`: the row just
   * stepped to holds a BLOB and is left current, unread, for `values()`. Text adding up to more
   * than `maxBytes` bytes throws SQLITE_TOOBIG, as `all` does (which counts characters).
   */
  readCells(batch: CellBatch, maxRows: number, maxBytes = Infinity): "full" | "done" | "blob" {
    batch.begin(this.#columnCount, maxRows);
    if (maxRows <= 0) return "full";
    if (!this.step()) return "done";
    // Counted again once a row is there, as in `all`.
    const count = sqlite().sqlite3_column_count(this.#pointer);
    if (count !== this.#columnCount) {
      this.#columnCount = count;
      batch.begin(count, maxRows);
    }
    if (this.#seen.length !== count) this.#seen = new Uint8Array(count);
    while (true) {
      if (!readRowCells(this.#pointer, batch, this.#seen)) {
        batch.end();
        return "blob";
      }
      if (batch.byteLength > maxBytes) {
        this.reset();
        throw new SqliteError(`Result larger than ${maxBytes} bytes`, SQLITE_TOOBIG);
      }
      if (batch.rows === maxRows) break;
      if (!this.step()) {
        batch.end();
        return "done";
      }
    }
    batch.end();
    return "full";
  }

  /** Resets the statement so it can run again (bindings are kept). */
  reset(): void {
    if (this.#pointer !== null && !this.#finalized) sqlite().sqlite3_reset(this.#pointer);
    this.#seen.fill(0);
  }

  /** Frees the statement. Safe to call twice. */
  finalize(): void {
    if (this.#finalized) return;
    this.#finalized = true;
    if (this.#pointer === null) return;
    leakedStatements.unregister(this);
    sqlite().sqlite3_finalize(this.#pointer);
  }

  /** `using stmt = conn.prepare(...)` finalizes at the end of the block. */
  [Symbol.dispose](): void {
    this.finalize();
  }

  #assertUsable(): void {
    if (this.#finalized) throw new Error("Statement is finalized");
    if (!this.#state.open) throw new Error("Connection is closed");
    if (this.#state.release !== null) this.#state.release();
  }
}
