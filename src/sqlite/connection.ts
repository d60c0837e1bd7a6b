/**
 * `Connection`: one SQLite database connection. Thin and synchronous; rows are arrays.
 *
 * `prepare/query/run/exec` are the binding's own API and never open transactions by themselves.
 * `execute/executescript/commit/rollback/create_*` follow Python's `sqlite3` for plugin code:
 * `execute()` of INSERT/UPDATE/DELETE/REPLACE opens a transaction first when none is active,
 * which then stays open until `commit()`.
 *
 * @module
 */

import { SQLITE_AUTH, SQLITE_INTERRUPT } from "./constants.ts";
import { Cursor } from "./cursor.ts";
import { check, errorFor, SqliteError } from "./errors.ts";
import { cString, sqlite } from "./ffi.ts";
import {
  type AggregateClass,
  type CollationFunction,
  type ScalarFunction,
  UserFunctions,
} from "./functions.ts";
import { loadExtension } from "./extensions.ts";
import { defend, readLimits, type SqlLimits } from "./guard.ts";
import { Restriction } from "./restriction.ts";
import { type OpenOptions, openTarget } from "./open_uri.ts";
import { type GuardReport, TableGuard } from "./table_guard.ts";
import { type ConnectionState, Statement } from "./statement.ts";
import type { BindParams, SqlValue } from "./values.ts";

export type { OpenOptions } from "./open_uri.ts";

/** Rows of `Connection.query()`; `truncated` when more rows existed than `maxRows`. */
export interface QueryResult {
  columns: string[];
  rows: SqlValue[][];
  truncated: boolean;
  /** Columns whose numbers were all stored as REAL (`Statement.realColumns`). */
  real_columns: number[];
}

/** Outcome of `Connection.run()`. */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** Statements `query()` keeps compiled per connection. */
const STATEMENT_CACHE_SIZE = 32;
/**
 * Longer SQL texts are compiled each time, never kept: visitors' SQL may be 100 KB, and 32
 * compiled statements of that size per connection would fill SQLite's heap limit.
 */
export const STATEMENT_CACHE_MAX_SQL = 16_384;

const DML = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(?:insert|update|delete|replace)\b/i;

function toNumberIfSafe(value: bigint): number | bigint {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/**
 * How many VM opcodes SQLite runs between two checks of a time limit of `ms` milliseconds. Each
 * check calls back into JavaScript (about 0.3 µs); a plain scan runs some 50 million opcodes a
 * second here, so checking every 1,000 cost 1.5% of every query's CPU under the usual 1 s limit
 * (2,100 calls for a 40 ms scan). Every 10,000 opcodes is still about 0.2 ms of such work, nothing
 * beside a limit of 200 ms or more; shorter limits are checked more often, and those of 20 ms or
 * less at every opcode. An opcode that runs long by itself (a whole `count(*)`, a slow function)
 * is not made any shorter by frequent checks: in a read worker the pool interrupts it from
 * outside (`sqlite3_interrupt`).
 */
export function progressSteps(ms: number): number {
  if (ms <= 20) return 1;
  return ms < 200 ? 1000 : 10_000;
}

/** An open SQLite connection. Create with {@link Connection.open}. */
export class Connection {
  #state: ConnectionState;
  #functions: UserFunctions;
  #progress: Deno.UnsafeCallback<{ parameters: ["pointer"]; result: "i32" }> | undefined;
  #deadline = Infinity;
  /** Compiled statements of `query()`, least recently used first. */
  #statements = new Map<string, Statement>();
  /** Statements out on `borrow()`, with the key they go back under. */
  #borrowed = new WeakMap<Statement, string>();
  /** The visitor restriction of `restricted()` (`restriction.ts`). */
  readonly #restriction: Restriction;
  /** The guard of `guardTables()`, installed on its first use and kept (`table_guard.ts`). */
  #tableGuard: TableGuard | undefined;
  /** The URI passed to `sqlite3_open_v2`. */
  readonly uri: string;
  /** Which engine this connection talks to (PostgreSQL's plugin connection says `"postgres"`). */
  readonly engine = "sqlite" as const;

  private constructor(db: Deno.PointerValue, uri: string) {
    this.#state = { db, open: true, release: null };
    this.#restriction = new Restriction(this.#state, () => this.#tableGuard);
    this.#functions = new UserFunctions(db);
    this.uri = uri;
  }

  /**
   * Opens `path`. Modes: read-write creating the file (default), `mode: "rw"`, read-only
   * (`mode: "ro"`, optionally `nolock`), `immutable`, a private in-memory database (`memory` or
   * the path `:memory:`), or a named shared in-memory database (`memoryName`, alive while any
   * connection to it is open). Throws SqliteError.
   */
  static open(path: string, options: OpenOptions = {}): Connection {
    const lib = sqlite();
    const { uri, flags } = openTarget(path, options);
    const out = new BigUint64Array(1);
    const rc = lib.sqlite3_open_v2(cString(uri), out, flags, null);
    const db = Deno.UnsafePointer.create(out[0]);
    if (rc !== 0) {
      const error = errorFor(db, rc);
      if (db !== null) lib.sqlite3_close_v2(db);
      // SQLite's "unable to open database file" does not say which file.
      error.message = `${error.message}: ${path}`;
      throw error;
    }
    lib.sqlite3_extended_result_codes(db, 1);
    try {
      defend(db);
    } catch (error) {
      lib.sqlite3_close_v2(db);
      throw error;
    }
    return new Connection(db, uri);
  }

  /** The `sqlite3*` address, so another thread can call `sqlite3_interrupt` on it. */
  get pointerValue(): bigint {
    return BigInt(Deno.UnsafePointer.value(this.#state.db));
  }

  /** False after `close()`. */
  get isOpen(): boolean {
    return this.#state.open;
  }

  /** True while a transaction is open (`!sqlite3_get_autocommit`). */
  get inTransaction(): boolean {
    return sqlite().sqlite3_get_autocommit(this.#db()) === 0;
  }

  /** Rows changed by the most recent INSERT/UPDATE/DELETE. */
  get changes(): number {
    return sqlite().sqlite3_changes(this.#db());
  }

  /** Rows changed since the connection opened. */
  get totalChanges(): number {
    return sqlite().sqlite3_total_changes(this.#db());
  }

  /** Rowid of the most recent successful INSERT (a bigint beyond ±2^53). */
  get lastInsertRowid(): number | bigint {
    return toNumberIfSafe(sqlite().sqlite3_last_insert_rowid(this.#db()));
  }

  /** @internal Compiles the first statement of `sql`. Empty or comment-only SQL gives a no-row statement. */
  prepare(sql: string): Statement {
    const db = this.#db();
    if (this.#state.release !== null) this.#restriction.release();
    const lib = sqlite();
    const text = cString(sql);
    const statementOut = new BigUint64Array(1);
    const tailOut = new BigUint64Array(1);
    const rc = lib.sqlite3_prepare_v3(db, text, text.byteLength, 0, statementOut, tailOut);
    if (rc !== 0) throw errorFor(db, rc);
    // The tail points into `text`, which is NUL-terminated, so it reads as a C string.
    const tailPointer = Deno.UnsafePointer.create(tailOut[0]);
    const tail = tailPointer === null ? "" : Deno.UnsafePointerView.getCString(tailPointer);
    return new Statement(this.#state, Deno.UnsafePointer.create(statementOut[0]), tail);
  }

  /** @internal
   * Runs one statement and returns its rows (at most `maxRows`, then `truncated` is true). Text
   * and BLOBs adding up to more than `maxBytes` fail with SQLITE_TOOBIG (see `Statement.all`).
   * The compiled statement is kept for the next call with the same SQL text (compiling is about
   * as costly as reading a small page of rows); it is reset after each use, so it never holds a
   * read transaction open. Statements compiled under `restricted` (whose authorizer and limits
   * act when a statement is compiled) are kept apart, by limits, and only reused under the same;
   * so are those compiled inside `guardTables()`, whose guard acts then too.
   */
  query(
    sql: string,
    params?: BindParams,
    options: { maxRows?: number; maxBytes?: number } = {},
  ): QueryResult {
    const key = this.#cacheKey(sql);
    const statement = this.#take(key, sql);
    try {
      statement.bind(params);
      const maxRows = options.maxRows ?? Infinity;
      const rows = statement.all(maxRows, options.maxBytes ?? Infinity);
      const real_columns = statement.realColumns();
      const truncated = rows.length >= maxRows && statement.step();
      return { columns: statement.columns(), rows, truncated, real_columns };
    } finally {
      this.#keep(key, statement);
    }
  }

  /** @internal
   * The compiled statement of `sql` from the statements `query()` keeps (compiled now when none
   * is kept), for a caller that runs it many times, e.g. once per row of a write; hand it back
   * with {@link giveBack} (or finalize it). Kept statements are shared with `query()`, under the
   * same rules: one compiled under `restricted()` or `guardTables()` is only reused under the
   * same. A kept statement stays valid through schema changes: SQLite compiles it again from its
   * SQL text when it next runs, under the authorizer installed then.
   */
  borrow(sql: string): Statement {
    const key = this.#cacheKey(sql);
    const statement = this.#take(key, sql);
    this.#borrowed.set(statement, key);
    return statement;
  }

  /** @internal Hands back a statement of {@link borrow}, bindings cleared, for the next one. */
  giveBack(statement: Statement): void {
    const key = this.#borrowed.get(statement);
    if (key === undefined) return statement.finalize();
    this.#borrowed.delete(statement);
    // Its bound values (a row's text, a BLOB) are not held on to while it waits.
    if (this.#state.open) statement.bind();
    this.#keep(key, statement);
  }

  /** Where `query()` keeps the statement of `sql` compiled now (see `query`). */
  #cacheKey(sql: string): string {
    return this.#restriction.depth > 0
      ? `${this.#restriction.key}\u0000${sql}`
      : this.#tableGuard?.active
      ? `guarded\u0000${sql}`
      : sql;
  }

  /** The kept statement under `key`, taken out while in use, or a newly compiled one. */
  #take(key: string, sql: string): Statement {
    const cached = this.#statements.get(key);
    if (cached) {
      // Taken out while in use: a nested query of the same text compiles its own.
      this.#statements.delete(key);
      return cached;
    }
    const statement = this.prepare(sql);
    try {
      // A second statement after the first would be silently ignored; refuse it instead.
      this.#assertSingleStatement(statement);
      if (this.#restriction.depth > 0 && !statement.readonly) {
        throw new SqliteError("not authorized: this query would change data", SQLITE_AUTH);
      }
    } catch (error) {
      statement.finalize();
      throw error;
    }
    return statement;
  }

  /**
   * Compiles one statement (read-only while `restricted`) and binds `params`, for reading its
   * rows a chunk at a time with `Statement.all(n)` (an export's cursor). Finalize it when done.
   * @internal
   */
  openCursor(sql: string, params?: BindParams): Statement {
    const statement = this.prepare(sql);
    try {
      this.#assertSingleStatement(statement);
      if (this.#restriction.depth > 0 && !statement.readonly) {
        throw new SqliteError("not authorized: this query would change data", SQLITE_AUTH);
      }
      statement.bind(params);
      return statement;
    } catch (error) {
      statement.finalize();
      throw error;
    }
  }

  #keep(key: string, statement: Statement): void {
    statement.reset();
    if (!this.#state.open || key.length > STATEMENT_CACHE_MAX_SQL) return statement.finalize();
    this.#statements.get(key)?.finalize();
    this.#statements.set(key, statement);
    if (this.#statements.size > STATEMENT_CACHE_SIZE) {
      const [oldest, evicted] = this.#statements.entries().next().value!;
      this.#statements.delete(oldest);
      evicted.finalize();
    }
  }

  /** @internal Runs one statement to completion, discarding rows. */
  run(sql: string, params?: BindParams): RunResult {
    const statement = this.prepare(sql);
    try {
      statement.bind(params);
      while (statement.step()) { /* drain */ }
    } finally {
      statement.finalize();
    }
    return { changes: this.changes, lastInsertRowid: this.lastInsertRowid };
  }

  /** Runs a script of any number of `;`-separated statements (no parameters). */
  exec(script: string): void {
    const db = this.#db();
    if (this.#state.release !== null) this.#restriction.release();
    const rc = sqlite().sqlite3_exec(db, cString(script), null, null, null);
    if (rc !== 0) throw errorFor(db, rc);
  }

  /**
   * Interrupts any statement still running `ms` milliseconds from now (SqliteError code 9,
   * "interrupted"); `null` removes the limit. Checked every {@link progressSteps} VM opcodes.
   */
  setDeadline(ms: number | null): void {
    const lib = sqlite();
    const db = this.#db();
    if (ms === null) {
      this.#deadline = Infinity;
      lib.sqlite3_progress_handler(db, 0, null, null);
      return;
    }
    this.#deadline = performance.now() + ms;
    this.#progress ??= new Deno.UnsafeCallback(
      { parameters: ["pointer"], result: "i32" } as const,
      () => performance.now() > this.#deadline ? 1 : 0,
    );
    lib.sqlite3_progress_handler(db, progressSteps(ms), this.#progress.pointer, null);
  }

  /** @internal
   * Runs `fn` with the connection restricted for SQL written by a visitor: `limits` lowered (see
   * `VISITOR_LIMITS` in guard.ts), the visitor authorizer on (no file-reading or address-leaking
   * functions, no ATTACH, no schema changes, read-only pragmas) and `query()` refusing any
   * statement that is not read-only. All of it is undone before the connection next compiles or
   * steps a statement, or runs a script, outside restricted work, so the application's own SQL on
   * the connection is unaffected. Until then it stays applied: setting a dozen limits and the
   * authorizer (which also expires every compiled statement) cost more than a small query, and a
   * read connection runs restricted work almost only. Pass the same `limits` object each time
   * (or an equal one) to keep them applied.
   */
  restricted<T>(fn: () => T, limits: Partial<SqlLimits>, owner = false): T {
    this.#db();
    // Its authorizer would take the guard's place for the rest of the guarded work.
    if (this.#tableGuard?.active) throw new Error("restricted() inside guardTables() work");
    return this.#restriction.run(fn, limits, owner);
  }

  /** @internal
   * Runs `fn` with every statement that would write to, or change, one of `tables` (lower-case
   * names) refused at compile time (`table_guard.ts`), writing what the guard saw into `report`.
   * Not inside `restricted()` work, whose authorizer it would replace. The guard's authorizer
   * stays installed afterwards, allowing everything until the next call: installing one expires
   * every compiled statement, which `query()` would then compile again.
   */
  guardTables<T>(tables: ReadonlySet<string>, report: GuardReport, fn: () => T): T {
    const db = this.#db();
    if (this.#restriction.depth > 0) throw new Error("guardTables() inside restricted() work");
    if (this.#state.release !== null) this.#restriction.release();
    this.#tableGuard ??= new TableGuard(db);
    return this.#tableGuard.run(tables, report, fn);
  }

  /** @internal The connection's current `sqlite3_limit` values (outside restricted work, its own). */
  limits(): SqlLimits {
    const db = this.#db();
    if (this.#state.release !== null) this.#restriction.release();
    return readLimits(db);
  }

  /**
   * How long a statement waits for another connection's lock before failing with SQLITE_BUSY
   * (`PRAGMA busy_timeout`, without compiling a statement).
   */
  setBusyTimeout(ms: number): void {
    check(this.#db(), sqlite().sqlite3_busy_timeout(this.#db(), Math.max(0, Math.floor(ms))));
  }

  /**
   * Hands back the page cache memory that no statement is using (`sqlite3_db_release_memory`):
   * for a connection that will sit idle a while. Its next reads fetch those pages again.
   */
  releaseMemory(): void {
    sqlite().sqlite3_db_release_memory?.(this.#db());
  }

  /** Makes the running statement (if any) fail with "interrupted". */
  interrupt(): void {
    sqlite().sqlite3_interrupt(this.#db());
  }

  /** Python sqlite3: registers a scalar SQL function. */
  create_function(
    name: string,
    numArgs: number,
    fn: ScalarFunction,
    options: { deterministic?: boolean; innocuous?: boolean } = {},
  ): void {
    this.#db();
    this.#functions.createFunction(name, numArgs, fn, options);
  }

  /** Python sqlite3: registers an aggregate; each group gets `new AggregateClass()`. */
  create_aggregate(name: string, numArgs: number, aggregateClass: AggregateClass): void {
    this.#db();
    this.#functions.createAggregate(name, numArgs, aggregateClass);
  }

  /** Python sqlite3: registers a collation usable as `COLLATE name`. */
  create_collation(name: string, compare: CollationFunction): void {
    this.#db();
    this.#functions.createCollation(name, compare);
  }

  /**
   * Python sqlite3's `execute`: runs one statement and returns a {@link Cursor}. Opens a
   * transaction before INSERT/UPDATE/DELETE/REPLACE when none is active (commit it with
   * `commit()`).
   */
  execute(sql: string, params?: BindParams): Cursor {
    const isDml = DML.test(sql);
    const statement = this.prepare(sql);
    try {
      this.#assertSingleStatement(statement);
      if (isDml && !this.inTransaction) this.exec("BEGIN");
      statement.bind(params);
      const rows = statement.all();
      return new Cursor({
        rows,
        columns: statement.columns(),
        rowcount: isDml ? this.changes : -1,
        lastrowid: this.lastInsertRowid,
      });
    } finally {
      statement.finalize();
    }
  }

  #assertSingleStatement(statement: Statement): void {
    if (/[^\s;]/.test(statement.tail) && this.#hasMoreStatements(statement.tail)) {
      throw new SqliteError("You can only execute one statement at a time.", 1);
    }
  }

  #hasMoreStatements(tail: string): boolean {
    const next = this.prepare(tail);
    const more = next.pointer !== null;
    next.finalize();
    return more;
  }

  /** Python sqlite3's `executescript`: commits any open transaction, then runs the script. */
  executescript(script: string): void {
    this.commit();
    this.exec(script);
  }

  /** Commits the open transaction, if any. */
  commit(): void {
    if (this.inTransaction) this.exec("COMMIT");
  }

  /** Rolls back the open transaction, if any. */
  rollback(): void {
    if (this.inTransaction) this.exec("ROLLBACK");
  }

  /** Loads a SQLite extension library (C API only; the SQL `load_extension()` stays off). */
  loadExtension(path: string, entry?: string): void {
    const db = this.#db();
    if (this.#state.release !== null) this.#restriction.release();
    loadExtension(db, path, entry);
  }

  /** Closes the connection and frees its callbacks. Safe to call twice. */
  close(): void {
    if (!this.#state.open) return;
    for (const statement of this.#statements.values()) statement.finalize();
    this.#statements.clear();
    this.#state.open = false;
    this.#state.release = null;
    const lib = sqlite();
    // close_v2 defers the real close until leftover statements are finalized.
    lib.sqlite3_close_v2(this.#state.db);
    this.#functions.close();
    this.#progress?.close();
    this.#progress = undefined;
    this.#restriction.close();
    this.#tableGuard?.close();
    this.#tableGuard = undefined;
  }

  /** `using conn = Connection.open(...)` closes at the end of the block. */
  [Symbol.dispose](): void {
    this.close();
  }

  #db(): Deno.PointerValue {
    if (!this.#state.open) throw new Error("Connection is closed");
    return this.#state.db;
  }
}

/** True when `error` is SQLite's "interrupted" (deadline or `interrupt()`). */
export function isInterrupted(error: unknown): boolean {
  return error instanceof SqliteError && error.code === SQLITE_INTERRUPT;
}
