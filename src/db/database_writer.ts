/**
 * `DatabaseWriter`: the write side of one SQLite `Database`. Every write runs on the main thread
 * through the database's one write connection, one task at a time in arrival order
 * (`write_queue.ts`), inside `BEGIN IMMEDIATE` where Vitrine manages the transaction
 * (`write_lock.ts`), traced, timed for `/-/metrics`, and dropping the memoised introspection when
 * it moved the schema. `Database`'s `execute_write*` methods are thin over it.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Cursor } from "../sqlite/cursor.ts";
import type { BindParams } from "../sqlite/values.ts";
import { traceClock, traceSql } from "../util/trace.ts";
import { asDatabaseError, DatabaseNotMutable, WriteLockError } from "./errors.ts";
import type { DatabaseHost } from "./host.ts";
import {
  needsOwnTransaction,
  writeMany,
  writeOne,
  type WriteResult,
  writeScript,
} from "./write_ops.ts";
import { WriteQueue } from "./write_queue.ts";
import { inManagedTransaction, prepareWriteConnection, unwritable } from "./write_lock.ts";

/** What the writer needs from its `Database`. */
export interface WriterSource {
  /** The database's current name (it may be renamed while served). */
  name(): string;
  /** False when the database refuses writes (immutable, or opened with `mode: "ro"`). */
  writable(): boolean;
  /** True for memory databases (no WAL for them). */
  isMemory: boolean;
  /** The service-side facilities: settings, metrics. */
  host: DatabaseHost;
  /** The write connection, opened on first use (throws once the database is closed). */
  connection(): Connection;
  /** Called after a write that moved `schema_version`. */
  schemaChanged(): void;
}

/** Runs the writes of one database. */
export class DatabaseWriter {
  #source: WriterSource;
  #queue: WriteQueue;

  constructor(source: WriterSource) {
    this.#source = source;
    this.#queue = new WriteQueue(`database "${source.name()}"`);
  }

  /** Busy timeout and WAL for the write connection (`write_lock.ts`). */
  prepare(conn: Connection): void {
    const { host, isMemory } = this.#source;
    prepareWriteConnection(conn, {
      label: this.#source.name(),
      busyTimeoutMs: this.#lockTimeout(),
      wal: !isMemory && Boolean(host.setting("wal_mode")),
    });
  }

  #lockTimeout(): number {
    return Number(this.#source.host.setting("write_lock_timeout_ms") ?? 0);
  }

  /**
   * Runs `task` with exclusive use of the write connection, in arrival order. With `managed`,
   * the task runs inside a transaction opened here with `BEGIN IMMEDIATE` (waiting for other
   * processes' writes without blocking this thread, see `write_lock.ts`) and committed after it.
   */
  run<T>(
    task: (conn: Connection) => T,
    block: boolean,
    managed = false,
  ): Promise<Awaited<T> | string> {
    const source = this.#source;
    if (!source.writable()) return Promise.reject(new DatabaseNotMutable(source.name()));
    const run = async (): Promise<Awaited<T>> => {
      const conn = source.connection();
      if (conn.inTransaction) {
        // The previous execute_write_fn did not commit: report it, then clean up.
        conn.rollback();
        throw new WriteLockError();
      }
      const version = schemaVersion(conn);
      const started = performance.now();
      const name = source.name();
      try {
        if (!managed) return await task(conn);
        return await inManagedTransaction(conn, task, {
          timeoutMs: this.#lockTimeout(),
          label: name,
          onLocked: (ms) => source.host.observeLockWait?.(name, ms / 1000),
        });
      } catch (error) {
        throw unwritable(error, name);
      } finally {
        source.host.observeSql?.(name, "write", (performance.now() - started) / 1000);
        // Only writes that changed the schema (CREATE, ALTER, DROP…) move schema_version; rows
        // written leave the memoised introspection valid, which spares the next request its
        // worker round trips.
        if (version === null || schemaVersion(conn) !== version) source.schemaChanged();
      }
    };
    if (!block) return Promise.resolve(this.#queue.enqueue(run));
    return this.#queue.run(run);
  }

  /** `execute_write`: one writing statement in a transaction; the cursor or a task id. */
  statement(sql: string, params: BindParams | null | undefined, block: boolean) {
    return this.run(
      (conn): Cursor => this.#traced(sql, params, () => writeOne(conn, sql, params ?? undefined)),
      block,
      !needsOwnTransaction(sql),
    );
  }

  /** `execute_write_script`: `;`-separated statements, atomically where possible. */
  script(sql: string, block: boolean): Promise<WriteResult | string> {
    return this.run((conn) => this.#traced(sql, null, () => writeScript(conn, sql)), block);
  }

  /** `execute_write_many`: `sql` once per parameter set, in one transaction. */
  many(sql: string, list: BindParams[], block: boolean): Promise<WriteResult | string> {
    return this.run(
      (conn) => this.#traced(sql, list, () => writeMany(conn, sql, list)),
      block,
      true,
    );
  }

  /** `execute_write_fn`: `fn` with exclusive write access; a throw rolls back and propagates. */
  fn<T>(
    fn: (conn: Connection) => T,
    block: boolean,
    transaction: boolean,
  ): Promise<Awaited<T> | string> {
    return this.run(
      async (conn) => {
        try {
          return await fn(conn);
        } catch (error) {
          // The caller gets fn's own error, even if the rollback fails too.
          try {
            if (conn.isOpen) conn.rollback();
          } catch { /* the original error matters more */ }
          throw error;
        }
      },
      block,
      transaction,
    );
  }

  /** Runs one write statement (or script) traced; SQLite's failures become `QueryError`s. */
  #traced<T>(sql: string, params: BindParams | BindParams[] | null | undefined, body: () => T): T {
    const start = traceClock();
    try {
      return body();
    } catch (error) {
      throw asDatabaseError(error, sql, params);
    } finally {
      traceSql({
        database: this.#source.name(),
        sql,
        params: params ?? null,
        start,
        end: traceClock(),
      });
    }
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#queue.pending;
  }

  /** Resolves once no write is queued or running. */
  async drain(): Promise<void> {
    while (this.#queue.pending > 0) await this.#queue.drain();
  }
}

/** `PRAGMA schema_version` on `conn`, or null when it cannot be read. */
function schemaVersion(conn: Connection): unknown {
  try {
    return conn.isOpen ? conn.query("pragma schema_version").rows[0]?.[0] ?? null : null;
  } catch {
    return null;
  }
}
