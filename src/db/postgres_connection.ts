/**
 * `PgConnection`: what plugin code gets on a PostgreSQL database where SQLite hands over its
 * synchronous `Connection` — the `conn` of `execute_fn`, `execute_write_fn` and `write_wrapper`.
 * It stands for one transaction of one pooled connection (read-only under the read's time limit
 * for `execute_fn`, read-write otherwise) and offers the part of SQLite's `Connection` that makes
 * sense over a network: `execute(sql, params)` returns a **Promise** of the same `Cursor`
 * (`fetchone()`, `fetchall()`, `rows`, `columns`, `rowcount`), and `executemany`. Parameters are
 * Vitrine's (`:name` or `?`), as everywhere else. Statements that would end the transaction or
 * outlive it on the pooled connection (`COMMIT`, `SET`…) are refused, and so is any use once the
 * transaction is over. SQLite's own members (`prepare`, `query`, `create_function`, `commit`…)
 * do not exist here: docs/postgres.md lists both sides.
 *
 * @module
 */

import { Cursor } from "../sqlite/cursor.ts";
import { SqliteError } from "../sqlite/errors.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";
import { QueryError } from "./errors.ts";
import { toPgStatement } from "./postgres_params.ts";
import { pgParam } from "./postgres_values.ts";

/** A result column: its name and PostgreSQL type OID. */
export interface PgColumn {
  /** The column's name. */
  name: string;
  /** Its type's OID (`pg_type.oid`: 701 is `double precision`…). */
  type: number;
}

/**
 * What one statement gave: its rows as objects and as lists (columns of the same name all kept),
 * its columns, how many rows it changed, its command tag (`UPDATE`…).
 */
export interface PgRunResult {
  /** The rows as objects. */
  rows: Record<string, SqlValue>[];
  /** The rows as lists, in column order. */
  values: SqlValue[][];
  /** The result's columns. */
  columns: PgColumn[];
  /** Rows the statement changed (or returned). */
  count: number;
  /** Its command tag: `INSERT`, `UPDATE`, `SELECT`, `CREATE TABLE`… */
  command: string;
}

/** Runs one statement (`$n` placeholders, bound values) in the transaction. */
export type PgRun = (text: string, values: unknown[]) => Promise<PgRunResult>;

/**
 * Statements that would end the transaction or outlive it on the pooled connection (a `SET`
 * without `LOCAL` stays for the connection's next user).
 */
const OWN_SESSION =
  /^(?:begin|start|commit|end|rollback|abort|savepoint|release|prepare\s+transaction|set|reset|discard|vacuum|listen|unlisten|load)\b/i;

/** True when `text` (one statement) is transaction control or changes the session. */
export function ownsSession(text: string): boolean {
  return OWN_SESSION.test(withoutComments(text));
}

/** The statement without its leading comments. */
function withoutComments(text: string): string {
  return text.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, "");
}

/** Command tags whose count is rows written; SQLite's `rowcount` is -1 for the others. */
const ROW_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

/** SQLite's SQLITE_MISUSE: the connection is used outside its transaction. */
const MISUSE = 21;

/** One transaction's connection, handed to plugin code on a PostgreSQL database. */
export class PgConnection {
  /** Which engine this connection talks to: plugins that serve both tell them apart by it. */
  readonly engine = "postgres" as const;
  /** True inside `execute_fn`: the transaction is `READ ONLY`. */
  readonly read_only: boolean;
  readonly #run: PgRun;
  readonly #fail: (error: unknown, sql: string, params: BindParams | null) => Error;
  #open = true;
  /** Statements started and not yet done (a plain generator may not await them). */
  readonly #pending = new Set<Promise<unknown>>();
  /** The first statement that failed: PostgreSQL aborts the transaction then. */
  #failed: { error: unknown } | null = null;

  /**
   * A connection for one transaction; Vitrine makes these, plugins get them.
   * @param run runs one statement in the transaction
   * @param options `readOnly`; `fail` turns a driver error into the data layer's
   */
  constructor(
    run: PgRun,
    options: {
      /** True for a `READ ONLY` transaction. */
      readOnly: boolean;
      /** Turns a driver error into the data layer's. */
      fail: (error: unknown, sql: string, params: BindParams | null) => Error;
    },
  ) {
    this.#run = run;
    this.read_only = options.readOnly;
    this.#fail = options.fail;
  }

  /** False once the transaction it stands for is over. */
  get isOpen(): boolean {
    return this.#open;
  }

  /**
   * Runs one statement in the transaction; resolves with its rows as a `Cursor` (`rowcount` is
   * the rows an INSERT/UPDATE/DELETE changed, else -1; `lastrowid` is always 0: there is no
   * rowid).
   */
  execute(sql: string, params?: BindParams | null): Promise<Cursor> {
    return this.#track(this.#cursor(sql, params ?? null));
  }

  async #cursor(sql: string, params: BindParams | null): Promise<Cursor> {
    const done = await this.#execute(sql, params);
    return new Cursor({
      rows: done.values,
      columns: done.columns.map((column) => column.name),
      rowcount: ROW_COMMANDS.has(done.command) ? done.count : -1,
      lastrowid: 0,
    });
  }

  /** Runs `sql` once per parameter set, in order; `rowcount` is their total. */
  executemany(sql: string, params_seq: Iterable<BindParams>): Promise<Cursor> {
    return this.#track(this.#many(sql, params_seq));
  }

  async #many(sql: string, params_seq: Iterable<BindParams>): Promise<Cursor> {
    let total = 0;
    let last: PgRunResult | null = null;
    for (const params of params_seq) {
      last = await this.#execute(sql, params);
      total += ROW_COMMANDS.has(last.command) ? last.count : 0;
    }
    return new Cursor({
      rows: [],
      columns: [],
      rowcount: last && ROW_COMMANDS.has(last.command) ? total : -1,
      lastrowid: 0,
    });
  }

  /**
   * @internal Waits for every statement started on it, awaited or not, and throws the first that
   * failed even if its caller caught it: a failed statement has aborted the transaction, whose
   * COMMIT would quietly roll back, so the write must fail instead.
   */
  async settle(): Promise<void> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
    if (this.#failed) throw this.#failed.error;
  }

  /** @internal Ends its use: the transaction is over. */
  close(): void {
    this.#open = false;
  }

  /** Keeps `promise` until it is done; a failure is noted, never left unhandled. */
  #track<T>(promise: Promise<T>): Promise<T> {
    this.#pending.add(promise);
    promise.then(
      () => this.#pending.delete(promise),
      (error) => {
        this.#pending.delete(promise);
        this.#failed ??= { error };
      },
    );
    return promise;
  }

  async #execute(sql: string, params: BindParams | null): Promise<PgRunResult> {
    if (!this.#open) {
      throw new QueryError(
        sql,
        params,
        new SqliteError(
          "This connection's transaction is over: use it only inside its function",
          MISUSE,
        ),
      );
    }
    if (ownsSession(sql)) {
      throw new QueryError(
        sql,
        params,
        new SqliteError(
          "Transaction control, SET, RESET, DISCARD and VACUUM cannot run inside this transaction",
          1,
        ),
      );
    }
    const statement = toPgStatement(sql.trim().replace(/;+$/, ""), params);
    try {
      return await this.#run(statement.text, statement.values.map(pgParam));
    } catch (error) {
      throw this.#fail(error, sql, params);
    }
  }
}
