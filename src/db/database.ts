/**
 * `Database`: the spec's database object. Reads go to the shared worker pool (or the main thread
 * when `num_sql_threads` is 0 or the database is a private `:memory:` one); writes and
 * `execute_fn` run on the main thread, writes through one connection and a FIFO queue
 * (`database_writer.ts`).
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "./dialect.ts";
import type { Connection } from "../sqlite/connection.ts";
import type { Cursor } from "../sqlite/cursor.ts";
import type { BindParams } from "../sqlite/values.ts";
import { type ReadOutcome, traceClock } from "../util/trace.ts";
import { logSqlError, recordRead } from "./read_log.ts";
import { asDatabaseError, describeCapError, isInterruptError, QueryInterrupted } from "./errors.ts";
import { fileMtimeNs, fileSize, fileStem, sha256File } from "./file_facts.ts";
import { type DatabaseHost, type StandaloneHost, standaloneHost } from "./host.ts";
import type * as introspect from "./introspect.ts";
import { DatabaseIntrospection } from "./database_introspection.ts";
import type { DatabaseEngine } from "./engine.ts";
import type { ReadRequest } from "./read_query.ts";
import { creditQueueWait, requestArrival } from "./request_clock.ts";
import type { ChunkRequest, PoolCursor } from "./pool.ts";
import type { QueryCache } from "./query_cache.ts";
import { contentVersion } from "./data_version.ts";
import { isPrivateMemory, MAX_ATTACHED, type ReadSource, type ReadTarget } from "./read_target.ts";
import { DatabaseConnections } from "./database_connections.ts";
import { Results } from "./results.ts";
import type { WriteResult } from "./write_ops.ts";
import { DatabaseWriter } from "./database_writer.ts";
import { READER_BUSY_TIMEOUT_MS, readOnThisThread, readTinyInline } from "./main_thread_read.ts";
import { readAheadCursor } from "./read_ahead_cursor.ts";
import { readThroughCache } from "./cached_read.ts";
import type {
  DatabaseOptions,
  ExecuteOptions,
  WriteFnOptions,
  WriteOptions,
} from "./database_options.ts";

export type {
  DatabaseOptions,
  ExecuteOptions,
  WriteFnOptions,
  WriteOptions,
} from "./database_options.ts";

/** Database objects made so far (each gets the next number as its instance). */
let instances = 0;

/** A database served by Vitrine. */
export class Database extends DatabaseIntrospection implements DatabaseEngine {
  /** This engine. */
  readonly engine = "sqlite" as const;
  /** Name (the key in `svc.databases`). */
  name: string;
  /** URL path segment. */
  route: string;
  /** File path, or null for memory databases. */
  readonly path: string | null;
  /** True when writes are allowed. */
  readonly is_mutable: boolean;
  /** True for in-memory databases (private or named). */
  readonly is_memory: boolean;
  /** Name of the shared in-memory database, or null. */
  readonly memory_name: string | null;
  /**
   * When the database was attached while the server was running (a data library's new file),
   * shown on the index page; null for databases served from the start.
   */
  added_at: Date | null = null;
  /** The SQL this database's engine speaks, for the table layer (`src/db/dialect.ts`). */
  readonly dialect: SqlDialect = sqliteDialect;
  #host: DatabaseHost;
  #ownHost: StandaloneHost | null = null;
  #options: DatabaseOptions;
  #writer: DatabaseWriter;
  #connections: DatabaseConnections;
  #hash: string | null | undefined;
  #closed = false;
  /** Tells this Database from a later one of the same name and file (ReadSource.instance). */
  #instance = ++instances;

  /** `host` is the owning service; `undefined` gives the database its own standalone host. */
  constructor(host: DatabaseHost | undefined, options: DatabaseOptions = {}) {
    super();
    if (host === undefined) host = this.#ownHost = standaloneHost();
    this.#host = host;
    this.#options = options;
    if (options.hash && options.is_mutable === false) this.#hash = options.hash;
    this.path = options.path ?? null;
    this.memory_name = options.memory_name ?? null;
    this.is_memory = Boolean(options.is_memory) || this.memory_name !== null || this.path === null;
    this.is_mutable = options.is_mutable ?? true;
    this.name = options.name ??
      (this.memory_name ?? (this.path !== null ? fileStem(this.path) : "_memory"));
    this.route = options.route ?? this.name;
    this.#writer = new DatabaseWriter({
      name: () => this.name,
      writable: () => this.is_mutable && this.#options.mode !== "ro",
      isMemory: this.is_memory,
      host,
      connection: () => {
        this.#assertOpen();
        return this.#connections.writer();
      },
      schemaChanged: () => this.schemaChanged(),
    });
    this.#connections = new DatabaseConnections({
      path: this.is_memory ? null : this.path,
      memory_name: this.memory_name,
      prepare: (conn) => this.#prepare(conn),
      prepareWriter: (conn) => this.#writer.prepare(conn),
    });
  }

  /** SHA-256 hex of the file for immutable databases (computed once), else null. */
  get hash(): string | null {
    if (this.#hash === undefined) {
      this.#hash = !this.is_mutable && !this.is_memory && this.path !== null
        ? sha256File(this.path)
        : null;
    }
    return this.#hash;
  }

  /** File size in bytes; 0 for memory databases. */
  get size(): number {
    if (this.is_memory || this.path === null) return 0;
    try {
      return fileSize(this.path);
    } catch (error) {
      // Deleted while served (a data library takes it away a moment later): no bytes.
      if (error instanceof Deno.errors.NotFound) return 0;
      throw error;
    }
  }

  /** File modification time in nanoseconds (exact, a bigint); null for memory databases. */
  get mtime_ns(): bigint | null {
    if (this.is_memory || this.path === null) return null;
    try {
      return fileMtimeNs(this.path);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  /** @internal How worker connections open this database (without ATTACHes). */
  readSource(): ReadSource {
    return {
      name: this.name,
      path: this.is_memory ? null : this.path,
      immutable: !this.is_mutable,
      memoryName: this.memory_name,
      nolock: this.#options.nolock,
      instance: this.#instance,
    };
  }

  #readTarget(): ReadTarget {
    const others = this.#options.crossdb_attach?.() ?? [];
    const attach = others.filter((db) => db !== this)
      .map((db) => db.readSource())
      .filter((source) => !isPrivateMemory(source))
      .slice(0, MAX_ATTACHED);
    return { ...this.readSource(), attach };
  }

  #setting(key: string): number {
    return Number(this.#host.setting(key) ?? 0);
  }

  /**
   * Runs a read query; see the spec's `execute`. Rejects with `QueryInterrupted` on overrun and
   * with `QueryError` when SQLite refuses the statement.
   */
  async execute(
    sql: string,
    params?: BindParams | null,
    options: ExecuteOptions = {},
  ): Promise<Results> {
    const { truncate = true, custom_time_limit, page_size, log_sql_errors = true } = options;
    const cap = page_size ?? this.#setting("max_returned_rows");
    const maxBytes = options.byte_cap === false ? 0 : this.#setting("max_returned_bytes");
    const request: ReadRequest = {
      sql,
      params: params ?? null,
      maxRows: truncate && cap > 0 ? cap : null,
      timeLimitMs: this.#timeLimit(custom_time_limit),
      deadline: options.request_deadline === false ? null : this.#deadline(),
      json: options.json_rows ?? null,
      text: options.text_rows ?? null,
      maxBytes: options.byte_cap === false ? null : this.#byteCap(),
      owner: options.owner_sql === true,
    };
    const start = traceClock();
    const { signal } = options;
    const cache = options.cache ? this.#queryCache() : null;
    const contents = cache ? this.#contents() : null;
    // What the trace says of it: answered from the cache unless its own run happened.
    let outcome: ReadOutcome | undefined;
    try {
      if (cache && contents !== null) {
        outcome = "cached";
        return await readThroughCache(
          cache,
          contents,
          request,
          params,
          maxBytes,
          () => this.#read(request, signal, options.inline),
          () => outcome = undefined,
        );
      }
      return await this.#read(request, signal, options.inline);
    } catch (error) {
      // A query dropped from the queue rejects with the signal's reason: same outcome as one
      // interrupted while running.
      const cancelled = signal?.aborted && error === signal.reason;
      if (cancelled || isInterruptError(error)) {
        outcome = "interrupted";
        throw new QueryInterrupted(sql, params, undefined, { cause: error });
      }
      const capped = describeCapError(error, maxBytes, sql, params);
      if (capped) throw capped;
      if (log_sql_errors) {
        const message = error instanceof Error ? error.message : String(error);
        logSqlError(this.name, message, sql);
      }
      throw asDatabaseError(error, sql, params);
    } finally {
      recordRead(this.#host, this.name, sql, params, start, outcome);
    }
  }

  /**
   * An export's query read chunk by chunk in a read worker, in one statement (`ReadPool.cursor`),
   * so one snapshot: each chunk as CSV/TSV/NDJSON lines or as rows, as `next` asks, with the time
   * limit of one query. Null when there are no workers (`num_sql_threads` 0, private memory
   * databases): page through it instead.
   * @internal
   */
  exportCursor(
    sql: string,
    params: BindParams | null,
    options: { custom_time_limit?: number | null } = {},
  ): PoolCursor | null {
    const pool = this.#host.readPool();
    if (pool.size === 0 || this.#isPrivateMemory()) return null;
    const request: ReadRequest = {
      sql,
      params,
      maxRows: null,
      timeLimitMs: this.#timeLimit(options.custom_time_limit),
      deadline: null,
      maxBytes: this.#byteCap(),
    };
    const cursor = pool.cursor(this.#readTarget(), request);
    const read = (chunk: ChunkRequest) =>
      cursor.next(chunk).catch((error) => {
        if (isInterruptError(error)) {
          throw new QueryInterrupted(sql, params, undefined, { cause: error });
        }
        throw asDatabaseError(error, sql, params);
      });
    // The worker reads the chunk after the one asked for while that one is being sent
    // (`read_ahead_cursor.ts`).
    return readAheadCursor(read, () => cursor.close());
  }

  /** The query cache, for database files (memory databases are read fresh every time). */
  #queryCache(): QueryCache | null {
    if (this.is_memory || this.path === null) return null;
    return this.#host.queryCache?.() ?? null;
  }

  /**
   * @internal What this file holds now, for the query cache and `ETag`s: see {@link #contents};
   * null for memory databases and whenever it cannot be told.
   */
  contentsKey(): string | null {
    if (this.is_memory || this.path === null) return null;
    return this.#contents();
  }

  /**
   * What this file holds now, as the query cache keys it, or null to read uncached this time:
   * an immutable file's hash, or a mutable file's path and `data_version` (`data_version.ts`).
   * A mutable file opened with `nolock`, or read with other files attached, is never cached:
   * the version could not see every change.
   */
  #contents(): string | null {
    if (!this.is_mutable) return this.hash;
    if (this.#options.nolock || this.#readTarget().attach.length) return null;
    const conn = this.#mainConnection();
    const version = contentVersion(conn, this.#byteCap(), READER_BUSY_TIMEOUT_MS);
    return version === null ? null : `${this.path}\u0000${version}`;
  }

  /** `max_returned_bytes` as a read's byte cap: null for none. */
  #byteCap(): number | null {
    const maxBytes = this.#setting("max_returned_bytes");
    return maxBytes > 0 ? maxBytes : null;
  }

  /** How long a read may run (`sql_time_limit_ms`), in milliseconds; null without a limit. */
  get time_limit_ms(): number | null {
    return this.#timeLimit(null);
  }

  /** `sql_time_limit_ms`, or a lower `custom_time_limit`: how long the query may run. */
  #timeLimit(customLimit: number | null | undefined): number | null {
    let limit = this.#setting("sql_time_limit_ms");
    if (customLimit && customLimit < limit) limit = customLimit;
    return limit > 0 ? limit : null;
  }

  /**
   * When the query must be over: `sql_time_limit_ms` after the request arrived, moved by the
   * time this query itself waits for a worker (up to a bound; `ReadPool`). Null outside a
   * request (scripts, start-up work) or when there is no limit; the query's own limit then
   * counts from its start only.
   */
  #deadline(): number | null {
    const limit = this.#setting("sql_time_limit_ms");
    const arrival = requestArrival();
    return limit > 0 && arrival !== null ? arrival + limit : null;
  }

  async #read(request: ReadRequest, signal?: AbortSignal, inline = false): Promise<Results> {
    const pool = this.#host.readPool();
    if (pool.size === 0 || this.#isPrivateMemory()) {
      return await readOnThisThread(() => this.#mainConnection(), request, signal);
    }
    // Export pages stay in the workers: they write the lines there, while this thread sends.
    if (!request.text && (inline || pool.costs.isTiny(request.sql))) {
      const results = await readTinyInline(() => this.#mainConnection(), request, signal, {
        waits: this.is_mutable,
        costs: () => this.#host.readPool().costs,
      });
      if (results) return results;
    }
    // The pool moves the deadline by the query's wait for a worker: the request's later queries
    // are not charged that wait either.
    const deadline = request.deadline;
    try {
      return Results.lazy(await pool.run(this.#readTarget(), request, signal));
    } finally {
      if (deadline !== null && request.deadline !== null) {
        creditQueueWait(request.deadline - deadline, this.#setting("sql_time_limit_ms"));
      }
    }
  }

  #isPrivateMemory(): boolean {
    return isPrivateMemory(this.readSource());
  }

  /** Runs `fn(conn)` on a main-thread read connection and returns its result. */
  async execute_fn<T>(fn: (conn: Connection) => T | Promise<T>): Promise<T> {
    return await fn(this.#mainConnection());
  }

  /** The main-thread read connection (see DatabaseConnections.reader). */
  #mainConnection(): Connection {
    this.#assertOpen();
    return this.#connections.reader(this.#readTarget());
  }

  #prepare(conn: Connection): void {
    const cacheKb = this.#setting("cache_size_kb");
    if (cacheKb > 0) conn.exec(`PRAGMA cache_size = -${Math.floor(cacheKb)}`);
    this.#host.prepareConnection(conn, this.name);
  }

  /** Runs one writing statement in a transaction; returns the cursor (or a task id). */
  execute_write(sql: string, params?: BindParams | null): Promise<Cursor>;
  /** With `block: false`: queues the statement and returns its task id at once. */
  execute_write(
    sql: string,
    params: BindParams | null | undefined,
    options: { block: false },
  ): Promise<string>;
  /** The cursor, or the task id when `options.block` is false. */
  execute_write(
    sql: string,
    params?: BindParams | null,
    options?: WriteOptions,
  ): Promise<Cursor | string>;
  execute_write(
    sql: string,
    params?: BindParams | null,
    { block = true }: WriteOptions = {},
  ): Promise<Cursor | string> {
    return this.#writer.statement(sql, params, block);
  }

  /** Runs a script of `;`-separated statements, atomically where possible. */
  execute_write_script(sql: string): Promise<WriteResult>;
  /** With `block: false`: queues the script and returns its task id at once. */
  execute_write_script(sql: string, options: { block: false }): Promise<string>;
  /** The result, or the task id when `options.block` is false. */
  execute_write_script(sql: string, options?: WriteOptions): Promise<WriteResult | string>;
  execute_write_script(
    sql: string,
    { block = true }: WriteOptions = {},
  ): Promise<WriteResult | string> {
    return this.#writer.script(sql, block);
  }

  /** Runs `sql` once per parameter set, in one transaction. */
  execute_write_many(sql: string, params_seq: Iterable<BindParams>): Promise<WriteResult>;
  /** With `block: false`: queues the statements and returns their task id at once. */
  execute_write_many(
    sql: string,
    params_seq: Iterable<BindParams>,
    options: { block: false },
  ): Promise<string>;
  /** The result, or the task id when `options.block` is false. */
  execute_write_many(
    sql: string,
    params_seq: Iterable<BindParams>,
    options?: WriteOptions,
  ): Promise<WriteResult | string>;
  execute_write_many(
    sql: string,
    params_seq: Iterable<BindParams>,
    { block = true }: WriteOptions = {},
  ): Promise<WriteResult | string> {
    return this.#writer.many(sql, [...params_seq], block);
  }

  /**
   * Runs `fn(conn)` with exclusive write access; `fn` must commit itself (`conn.commit()`).
   * If it leaves a transaction open, the next write fails with "database table is locked".
   * An exception from `fn` rolls back and propagates (or is logged with `block: false`).
   */
  execute_write_fn<T>(fn: (conn: Connection) => T): Promise<Awaited<T>>;
  /** With `block: false`: queues `fn` and returns its task id at once. */
  execute_write_fn<T>(
    fn: (conn: Connection) => T,
    options: { block: false; transaction?: boolean },
  ): Promise<string>;
  /** `fn`'s result, or the task id when `options.block` is false. */
  execute_write_fn<T>(
    fn: (conn: Connection) => T,
    options?: WriteFnOptions,
  ): Promise<Awaited<T> | string>;
  execute_write_fn<T>(
    fn: (conn: Connection) => T,
    { block = true, transaction = false }: WriteFnOptions = {},
  ): Promise<Awaited<T> | string> {
    return this.#writer.fn(fn, block, transaction);
  }

  /**
   * Hands back the memory the main thread's connections hold for speed (SQLite's cached pages);
   * the read pool does the same in its workers when they are idle.
   */
  releaseMemory(): void {
    if (!this.#closed) this.#connections.releaseMemory();
  }

  /** Closes this database's connections (main thread and workers). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#connections.close();
    if (this.#ownHost) this.#ownHost.close();
    else {
      // Workers close their connections to it; a pool that is already gone has none.
      try {
        this.#host.readPool().forget(this.name, this.#instance).catch(() => {});
      } catch { /* no pool */ }
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`Database "${this.name}" is closed`);
  }

  // --- Introspection plumbing (the members themselves live in DatabaseIntrospection) ---

  /** @internal Runs introspection SQL through `execute()`. */
  protected introspectionQuery: introspect.SqlRunner = async (sql, params) =>
    (await this.execute(sql, params, { truncate: false, request_deadline: false, inline: true }))
      .rows;

  /** @internal Introspection SQL whose failure is an answer, not an error to log. */
  protected probeQuery: introspect.SqlRunner = async (sql, params) =>
    (await this.execute(sql, params, {
      truncate: false,
      request_deadline: false,
      log_sql_errors: false,
      inline: true,
    })).rows;

  /** @internal This table's metadata (`label_column`, `hidden`, ...). */
  protected tableConfigFor(table: string): Record<string, unknown> {
    return this.#host.tableConfig(this.name, table) ?? {};
  }

  /** @internal True when the schema can never change (immutable files). */
  protected schemaIsFixed(): boolean {
    return !this.is_mutable && !this.is_memory;
  }

  /** Tasks waiting on the write queue (for `/-/threads`-style reports). */
  get pending_writes(): number {
    return this.#writer.pending;
  }

  /** @internal Resolves once no write is queued or running (for a graceful shutdown). */
  drainWrites(): Promise<void> {
    return this.#writer.drain();
  }
}
