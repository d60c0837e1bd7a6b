/**
 * `PostgresDatabase`: a PostgreSQL database served beside SQLite files, through the npm
 * `postgres` driver (docs/postgres.md says why that one). It implements `DatabaseEngine`, so
 * pages, the JSON API and exports use it as they use a SQLite `Database`.
 *
 * Safety, for every read: a connection from a bounded pool (`max`), a `READ ONLY` transaction,
 * `SET LOCAL statement_timeout` to what is left of the request's time limit, and a cancel
 * request sent to the server at that limit or when the caller's signal aborts (a client that
 * went away). Statements always go through the extended protocol, so one call is one
 * statement: `select 1; delete …` is refused by the server itself.
 *
 * @module
 */

import { Cursor } from "../sqlite/cursor.ts";
import type { BindParams, SqlValue } from "../sqlite/values.ts";
import { traceClock, traceSql } from "../util/trace.ts";
import { logSqlError, recordRead } from "./read_log.ts";
import type { DatabaseHost } from "./host.ts";
import type { DatabaseEngine, RowWrites, TableWrites, WriteScope } from "./engine.ts";
import { pgTableWrites } from "./postgres_tables.ts";
import type { PgConnection, PgRun } from "./postgres_connection.ts";
import { pgRowWrites, type PgWriteRun, writeRefusal } from "./postgres_writes.ts";
import type { SqlDialect } from "./dialect.ts";
import { createPostgresDialect, postgresDialect } from "./postgres_dialect.ts";
import type { ExecuteOptions, WriteFnOptions, WriteOptions } from "./database_options.ts";
import { DatabaseNotMutable, QueryInterrupted } from "./errors.ts";
import type { PoolCursor } from "./pool.ts";
import { openPgExport } from "./postgres_cursor.ts";
import { wallClock } from "./read_query.ts";
import { requestArrival } from "./request_clock.ts";
import type { Results } from "./results.ts";
import type { WriteResult } from "./write_ops.ts";
import type * as catalog from "./postgres_introspect.ts";
import { PostgresIntrospection } from "./postgres_introspection.ts";
import { toPgStatement } from "./postgres_params.ts";
import { pgCell, pgParam } from "./postgres_values.ts";
import { maskUrl, type PgTarget } from "./postgres_url.ts";
import {
  connectPg,
  ONE_STATEMENT,
  type PgClientOptions,
  pgClientOptions,
  type Sql,
} from "./postgres_client.ts";
import {
  columnNames,
  pgError,
  pgRunner,
  readOnly,
  resultsOf,
  type Track,
  withPgConnection,
} from "./postgres_transaction.ts";

/** Options of a PostgreSQL database. */
export interface PostgresOptions {
  /** Schemas to serve (default `["public"]`); several name tables `schema.table`. */
  schemas?: string[];
  /** Most connections the pool opens (default 5). */
  max?: number;
  /** False refuses every write before it reaches the server (default true: the role decides). */
  is_mutable?: boolean;
}

/** A PostgreSQL database served by Vitrine. */
export class PostgresDatabase extends PostgresIntrospection implements DatabaseEngine {
  /** This engine. */
  readonly engine = "postgres" as const;
  /** Name (the key in `svc.databases`). */
  name: string;
  /** URL path segment. */
  route: string;
  /** Always null: a server, not a file. */
  readonly path = null;
  /** False: a PostgreSQL database is never a memory database. */
  readonly is_memory = false;
  /** True unless writes were switched off; the role's privileges decide the rest. */
  readonly is_mutable: boolean;
  /** When it was added while running, or null. */
  added_at: Date | null = null;
  /** Schemas served. */
  readonly schemas: string[];
  /** PostgreSQL's SQL for the table layer; tables are `schema.table` with several schemas. */
  readonly dialect: SqlDialect;
  /** The write API's row writes, each in a transaction of its own (`postgres_writes.ts`). */
  readonly row_writes: RowWrites;
  /** `/-/create` and `/-/alter`, each in a transaction of its own (`postgres_tables.ts`). */
  readonly table_writes: TableWrites;
  /** The connection URL with its password masked: safe to show. */
  readonly display_url: string;
  #host: DatabaseHost;
  /** What the driver is given; its pool is made on first use (`#client`). */
  #clientUrl: string;
  #clientOptions: PgClientOptions;
  #sql: Promise<Sql> | null = null;
  #password: string | null;
  #writes = 0;
  #closed = false;

  /** Connects lazily: nothing is opened before the first query. */
  constructor(host: DatabaseHost, target: PgTarget, options: PostgresOptions = {}) {
    super();
    this.#host = host;
    this.name = target.name;
    this.route = target.name;
    this.schemas = options.schemas?.length ? options.schemas : ["public"];
    this.is_mutable = options.is_mutable ?? true;
    this.dialect = this.schemas.length > 1
      ? createPostgresDialect({ qualified_schemas: this.schemas })
      : postgresDialect;
    this.display_url = maskUrl(target.url);
    this.#password = target.password;
    this.row_writes = pgRowWrites(
      this.dialect,
      (fn, scope) => this.#writeTransaction(fn, scope),
      () => this.schemaChanged(),
      (error, sql, params) => this.#error(error, sql, params),
    );
    this.table_writes = pgTableWrites(
      this.dialect,
      this.schemas,
      (fn, scope) => this.#writeTransaction(fn, scope),
      (sql, params) => this.catalogRun(sql, params),
      () => this.schemaChanged(),
      // A change of a table waits for its readers as long as a read may run.
      () => this.time_limit_ms,
    );
    this.#clientUrl = target.url;
    this.#clientOptions = pgClientOptions(target, this.schemas, options.max);
  }

  /** The driver's pool, made on first use (`postgres_client.ts`). */
  #client(): Promise<Sql> {
    return this.#sql ??= connectPg(this.#clientUrl, this.#clientOptions);
  }

  /** Null: a server's contents have no hash. */
  get hash(): null {
    return null;
  }

  /** 0: the size of a server's database is not shown. */
  get size(): number {
    return 0;
  }

  /** Writes in flight. */
  get pending_writes(): number {
    return this.#writes;
  }

  #setting(key: string): number {
    return Number(this.#host.setting(key) ?? 0);
  }

  /** `sql_time_limit_ms`, or a lower custom limit; null without a limit. */
  get time_limit_ms(): number | null {
    return this.#timeLimit(null);
  }

  #timeLimit(custom: number | null | undefined): number | null {
    let limit = this.#setting("sql_time_limit_ms");
    if (custom && custom < limit) limit = custom;
    return limit > 0 ? limit : null;
  }

  /** Milliseconds this read may run: its limit, cut to what is left of the request's. */
  #budget(options: ExecuteOptions): number | null {
    const limit = this.#timeLimit(options.custom_time_limit);
    if (limit === null) return null;
    const arrival = options.request_deadline === false ? null : requestArrival();
    const total = this.#setting("sql_time_limit_ms");
    if (arrival === null || total <= 0) return limit;
    return Math.max(1, Math.min(limit, arrival + total - wallClock()));
  }

  /** Turns a driver error into the data layer's, with any password masked. */
  #error(error: unknown, sql: string, params: BindParams | null | undefined): Error {
    return pgError(error, sql, params, this.#password);
  }

  /** `body` in a read-only transaction limited to `budget` ms (`postgres_transaction.ts`). */
  #readOnly<T>(
    budget: number | null,
    signal: AbortSignal | undefined,
    body: (tx: Sql, track: Track) => Promise<T>,
  ): Promise<T> {
    return readOnly(() => this.#client(), budget, signal, body);
  }

  /** Runs a read query; see the spec's `execute`. */
  async execute(
    sql: string,
    params?: BindParams | null,
    options: ExecuteOptions = {},
  ): Promise<Results> {
    this.#assertOpen();
    const { truncate = true, page_size, log_sql_errors = true } = options;
    const cap = page_size ?? this.#setting("max_returned_rows");
    const maxRows = truncate && cap > 0 ? cap : null;
    const statement = toPgStatement(sql, params);
    const values = statement.values.map(pgParam) as never[];
    const start = traceClock();
    try {
      return await this.#readOnly(this.#budget(options), options.signal, async (tx, track) => {
        const query = track(tx.unsafe(statement.text, values, ONE_STATEMENT).values());
        if (maxRows === null) {
          const rows = await query;
          return resultsOf(rows, rows.columns, false);
        }
        // A server-side portal read one batch past the cap: rows beyond it are never sent.
        let batch: SqlValue[][] = [];
        for await (const chunk of query.cursor(maxRows + 1)) {
          batch = chunk;
          break;
        }
        return resultsOf(batch.slice(0, maxRows), query.statement?.columns, batch.length > maxRows);
      });
    } catch (error) {
      const failure = this.#error(error, sql, params);
      if (log_sql_errors && !(failure instanceof QueryInterrupted)) {
        logSqlError(this.name, failure.message, sql);
      }
      throw failure;
    } finally {
      recordRead(this.#host, this.name, sql, params, start);
    }
  }

  /**
   * An export's query through a server-side cursor in one read-only transaction, memory bounded
   * whatever the size (`postgres_cursor.ts`).
   * @internal
   */
  exportCursor(
    sql: string,
    params: BindParams | null,
    options: { custom_time_limit?: number | null } = {},
  ): PoolCursor | null {
    this.#assertOpen();
    const statement = toPgStatement(sql, params);
    return openPgExport({
      begin: async (fn) => (await this.#client()).begin("read only", fn),
      text: statement.text,
      values: statement.values.map(pgParam),
      options: ONE_STATEMENT,
      limitMs: this.#timeLimit(options.custom_time_limit),
      fail: (error) => this.#error(error, sql, params),
    });
  }

  /** Null: nothing tells cheaply what a server's database holds now (nothing is cached). */
  contentsKey(): string | null {
    return null;
  }

  /**
   * Runs `fn(conn)` in one `READ ONLY` transaction under the read's time limit
   * (`sql_time_limit_ms`; `statement_timeout` and a cancel request, as for `execute`). `conn` is a
   * `PgConnection`, whose `execute` returns a Promise: `await conn.execute(sql, params)`. Errors
   * are the data layer's (`QueryError`, `QueryInterrupted`).
   */
  async execute_fn<T>(fn: (conn: PgConnection) => T | Promise<T>): Promise<T> {
    this.#assertOpen();
    return await this.#readOnly(this.#budget({}), undefined, async (tx, track) => {
      return await this.#withConnection(this.#runner(tx, track), true, fn);
    });
  }

  /**
   * Runs one writing statement in its own read-write transaction (no time limit but the
   * server's). The role's privileges decide; a refusal is the server's message.
   */
  execute_write(sql: string, params?: BindParams | null): Promise<Cursor>;
  /** With `block: false`: queues the statement and returns its task id. */
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
  async execute_write(
    sql: string,
    params?: BindParams | null,
    { block = true }: WriteOptions = {},
  ): Promise<Cursor | string> {
    const run = () => this.#writeMany(sql, [params ?? null]).then((r) => r.cursor);
    if (!block) {
      run().catch((error) => console.error(`Write to "${this.name}" failed: ${error.message}`));
      return crypto.randomUUID();
    }
    return await run();
  }

  /** Runs `sql` once per parameter set, in one transaction. */
  async execute_write_many(sql: string, params_seq: Iterable<BindParams>): Promise<WriteResult> {
    const { cursor } = await this.#writeMany(sql, [...params_seq]);
    return { rowcount: cursor.rowcount, lastrowid: cursor.lastrowid };
  }

  /** A script of statements, in one transaction (the simple protocol allows several). */
  async execute_write_script(sql: string): Promise<WriteResult> {
    this.#assertWritable();
    this.#writes++;
    try {
      await (await this.#client()).begin(async (tx) => {
        await (tx as unknown as Sql).unsafe(sql, [], { simple: true } as Record<string, boolean>);
      });
      this.schemaChanged();
      return { rowcount: -1, lastrowid: 0 };
    } catch (error) {
      throw this.#error(error, sql, null);
    } finally {
      this.#writes--;
    }
  }

  /**
   * `fn` in one read-write transaction, inside `scope` (the write_wrapper hooks, given the
   * transaction's connection) when there is one; the server's refusals as the write API answers
   * them.
   */
  async #writeTransaction<T>(
    fn: (run: PgWriteRun) => Promise<T>,
    scope: WriteScope | null,
  ): Promise<T> {
    this.#assertWritable();
    this.#writes++;
    try {
      return await (await this.#client()).begin(async (tx) => {
        const run = this.#runner(tx as unknown as Sql, null);
        if (!scope) return await fn(run);
        return await this.#withConnection(run, false, (conn) => scope.around(conn, () => fn(run)));
      }) as T;
    } catch (error) {
      throw writeRefusal(error);
    } finally {
      this.#writes--;
    }
  }

  /** Runs statements on `tx`, traced; `track` lets a read's time limit cancel them. */
  #runner(tx: Sql, track: Track | null): PgRun {
    return pgRunner(tx, track, this.name);
  }

  /** `use(conn)` with the connection plugin code gets for one transaction. */
  #withConnection<T>(
    run: PgRun,
    readOnly: boolean,
    use: (conn: PgConnection) => T | Promise<T>,
  ): Promise<T> {
    return withPgConnection(run, readOnly, (e, sql, params) => this.#error(e, sql, params), use);
  }

  async #writeMany(
    sql: string,
    paramSets: (BindParams | null)[],
  ): Promise<{ cursor: Cursor }> {
    this.#assertWritable();
    this.#writes++;
    const start = traceClock();
    try {
      let last: { rows: SqlValue[][]; columns: string[]; count: number } | null = null;
      let total = 0;
      await (await this.#client()).begin(async (tx) => {
        for (const params of paramSets) {
          const statement = toPgStatement(sql, params);
          const values = statement.values.map(pgParam) as never[];
          const rows = await (tx as unknown as Sql)
            .unsafe(statement.text, values, ONE_STATEMENT)
            .values();
          const count = Number((rows as unknown as { count?: number }).count ?? 0);
          total += count;
          last = {
            rows: (rows as unknown as unknown[][]).map((row) => row.map(pgCell)),
            columns: columnNames(rows.columns),
            count,
          };
        }
      });
      if (/^\s*(create|alter|drop|comment|grant|revoke)\b/i.test(sql)) this.schemaChanged();
      const done = last as { rows: SqlValue[][]; columns: string[]; count: number } | null;
      return {
        cursor: new Cursor({
          rows: done?.rows ?? [],
          columns: done?.columns ?? [],
          rowcount: paramSets.length > 1 ? total : done?.count ?? -1,
          lastrowid: 0,
        }),
      };
    } catch (error) {
      throw this.#error(error, sql, paramSets.length === 1 ? paramSets[0] : null);
    } finally {
      this.#writes--;
      traceSql({ database: this.name, sql, params: null, start, end: traceClock() });
    }
  }

  /**
   * Runs `fn(conn)` in one read-write transaction of its own and commits when it resolves (a
   * throw rolls it back). `conn` is a `PgConnection`: `await conn.execute(sql, params)`. As on
   * SQLite, a plugin's own write does not run the `write_wrapper` hooks and is not recorded in the
   * history; refused on a database that is not mutable.
   */
  execute_write_fn<T>(fn: (conn: PgConnection) => T): Promise<Awaited<T>>;
  /** `fn`'s result, or the task id when `options.block` is false. */
  execute_write_fn<T>(
    fn: (conn: PgConnection) => T,
    options?: WriteFnOptions,
  ): Promise<Awaited<T> | string>;
  async execute_write_fn<T>(
    fn: (conn: PgConnection) => T,
    { block = true }: WriteFnOptions = {},
  ): Promise<Awaited<T> | string> {
    const write = async () => {
      const result = await this.#writeTransaction(
        (run) => this.#withConnection(run, false, async (conn) => await fn(conn)),
        null,
      );
      // A plugin's SQL may have changed the schema: read it again rather than guess.
      this.schemaChanged();
      return result;
    };
    if (!block) {
      this.#assertWritable();
      write().catch((error) => console.error(`Write to "${this.name}" failed: ${error.message}`));
      return crypto.randomUUID();
    }
    return await write();
  }

  #assertWritable(): void {
    this.#assertOpen();
    if (!this.is_mutable) throw new DatabaseNotMutable(this.name);
  }

  // --- Introspection plumbing (the members live in PostgresIntrospection) ---

  /** A catalog query: no row cap, a short time limit of its own. */
  protected catalogRun: catalog.PgRunner = async (sql, params = []) => {
    try {
      return await this.#readOnly(
        this.#setting("sql_time_limit_ms") > 0 ? 5000 : null,
        undefined,
        async (tx) => {
          const rows = await tx.unsafe(sql, params as never[], ONE_STATEMENT).values();
          return (rows as unknown as unknown[][]).map((row) => row.map(pgCell));
        },
      );
    } catch (error) {
      throw this.#error(error, sql, null);
    }
  };

  /** @internal This table's metadata. */
  protected tableConfigFor(table: string): Record<string, unknown> {
    return this.#host.tableConfig(this.name, table) ?? {};
  }

  /** Nothing to hand back: the pool closes idle connections itself. */
  releaseMemory(): void {}

  /** Closes the pool (queries in flight finish first). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sql?.then((sql) => sql.end({ timeout: 5 })).catch(() => {});
  }

  /** Resolves once no write is in flight. */
  async drainWrites(): Promise<void> {
    while (this.#writes > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`Database "${this.name}" is closed`);
  }
}
