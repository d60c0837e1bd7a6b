/**
 * `DatabaseEngine`: what the pages, the API and the exports need from a served database,
 * whichever engine holds it. SQLite's `Database` and PostgreSQL's `PostgresDatabase` implement
 * it; `src/views/`, `src/render/` and `src/app/` see databases only through it.
 *
 * Members keep the spec's names (`execute`, `table_names`, …). `execute_fn` and
 * `execute_write_fn` hand their function the engine's connection (`EngineConnection`): SQLite's
 * synchronous `Connection`, or PostgreSQL's `PgConnection`, whose `execute` returns a Promise.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Cursor } from "../sqlite/cursor.ts";
import type { BindParams } from "../sqlite/values.ts";
import type { SqlDialect } from "./dialect.ts";
import type { ExecuteOptions, WriteFnOptions, WriteOptions } from "./database_options.ts";
import type { ForeignKey, TableForeignKeys } from "./introspect.ts";
import type { PoolCursor } from "./pool.ts";
import type { Results, Row } from "./results.ts";
import type { WriteResult } from "./write_ops.ts";
import type { KeyedTable, ReturnedRow } from "./row_writes.ts";
import type { BulkUpdateResult } from "./row_bulk.ts";
import type { BatchResult } from "./write_statements.ts";
import type { CreateTableResult, CreateTableSpec } from "./table_writes.ts";
import type { AlterOperation } from "./alter_plan.ts";
import type { AlterResult } from "./table_rebuild.ts";
import type { WriteRow } from "./write_values.ts";
import { PgConnection } from "./postgres_connection.ts";
import type { ChangeRecord } from "./history/capture.ts";
import type { RawEntry } from "./history/store.ts";

/**
 * The connection `execute_fn` and `execute_write_fn` hand to their function: SQLite's
 * synchronous `Connection`, or PostgreSQL's `PgConnection` (`conn.engine === "postgres"`).
 */
export type EngineConnection = Connection | PgConnection;

/**
 * `conn` as SQLite's `Connection`, for code that needs SQLite's own API (`prepare`, pragmas);
 * a `TypeError` saying so for a PostgreSQL connection.
 */
export function sqliteConnection(conn: EngineConnection): Connection {
  if (conn instanceof PgConnection) {
    throw new TypeError("This needs a SQLite connection; the database is PostgreSQL");
  }
  return conn;
}

/** Which engine holds a database. */
export type EngineName = "sqlite" | "postgres";

/**
 * What Vitrine's own writes run inside on an engine with {@link RowWrites}: the `write_wrapper`
 * hooks and the history's recording, both inside the write's transaction.
 */
export interface WriteScope {
  /**
   * Runs `write` inside whatever wraps it (the wrappers), in the write's transaction; `conn` is
   * that transaction's connection. Throwing aborts the write and rolls it back.
   */
  around<T>(conn: PgConnection, write: () => Promise<T>): Promise<T>;
  /**
   * The rows the write changed, summed up per row, handed over inside the transaction before it
   * commits; absent when the write is not recorded (no row images are read then).
   */
  record?(records: ChangeRecord[]): void;
  /**
   * A table whose columns the write added (`"alter": true`), with its definition before and
   * after, told inside the transaction: the `alter-table` event, sent only if it commits. SQLite's
   * writes need no such call: the core `write_wrapper` compares its schema table around them.
   */
  altered?(table: string, before_schema: string, after_schema: string): void;
}

/**
 * Row writes an engine does without a SQLite write connection; `alter` adds the columns the
 * rows name that the table lacks, in the same transaction.
 */
export interface RowWrites {
  /** The same writes, each run inside `scope` (wrappers, history). */
  within(scope: WriteScope): RowWrites;
  /**
   * Undoes recorded changes (oldest first, as read), newest first, in one transaction: each only
   * if its row is still as the change left it, else a 409 (`RevertConflict`) and nothing undone.
   */
  revert(entries: readonly RawEntry[]): Promise<void>;
  /** Inserts `rows`; `ignore` skips rows whose key exists, `replace` overwrites them. */
  insert(
    target: KeyedTable,
    rows: readonly WriteRow[],
    options: { ignore?: boolean; replace?: boolean; alter?: boolean; returning?: boolean },
  ): Promise<ReturnedRow[] | null>;
  /** Inserts or updates each row by its primary key. */
  upsert(
    target: KeyedTable,
    rows: readonly WriteRow[],
    options: { alter?: boolean; returning?: boolean },
  ): Promise<ReturnedRow[] | null>;
  /** Sets `update`'s columns on the row keyed by `keyValues`. */
  update(
    target: KeyedTable,
    keyValues: readonly unknown[],
    update: WriteRow,
    options: { alter?: boolean; returning?: boolean },
  ): Promise<ReturnedRow | null>;
  /** Deletes the row keyed by `keyValues`; how many rows went. */
  delete(target: KeyedTable, keyValues: readonly unknown[]): Promise<number>;
  /** `row_bulk.ts`'s `updateRows`: every row of `keyList` or, when one fails, none. */
  updateRows(
    target: KeyedTable,
    keyList: readonly (readonly unknown[])[],
    update: WriteRow,
    options: { returning?: boolean },
  ): Promise<BulkUpdateResult>;
  /** `row_bulk.ts`'s `deleteRows`: every row of `keyList` or, when one cannot go, none. */
  deleteRows(target: KeyedTable, keyList: readonly (readonly unknown[])[]): Promise<number>;
  /**
   * `/-/execute-write`'s batch (`write_statements.ts`'s `runStatements`) in one transaction;
   * with `dryRun` it runs and is rolled back.
   */
  statements(
    sql: string,
    params: BindParams | undefined,
    options: { dryRun?: boolean },
  ): Promise<BatchResult>;
  /**
   * A writable canned query's one statement, with its parameters, in a transaction of its own;
   * fails as `execute_write` does. How many rows it changed.
   */
  statement(sql: string, params: BindParams | null): Promise<{ rowcount: number }>;
  /** `/-/drop`: drops the table. */
  dropTable(table: string): Promise<void>;
}

/** Creating and altering tables on an engine without SQLite write connections. */
export interface TableWrites {
  /** The same, each run inside `scope` (the wrappers; schema changes are not recorded). */
  within(scope: WriteScope): TableWrites;
  /**
   * `/-/create` (`table_writes.ts`'s `createTable`): the table from its columns or rows, types
   * mapped to the engine's, and the rows inserted, in one transaction; a table that exists gets
   * the rows. With `dryRun` it is all done and rolled back.
   */
  create(spec: CreateTableSpec, options: { dryRun?: boolean }): Promise<CreateTableResult>;
  /**
   * `/-/alter` (`table_rebuild.ts`'s `alterTable`): every operation in one transaction; with
   * `dryRun` it is done and rolled back.
   */
  alter(
    table: string,
    operations: readonly AlterOperation[],
    options: { dryRun?: boolean },
  ): Promise<AlterResult>;
  /** For each table, the columns a new foreign key may point at (`table_writes.ts`'s `keyColumns`). */
  keyColumns(): Promise<Record<string, string[]>>;
}

/** A database served by Vitrine, of any engine. */
export interface DatabaseEngine {
  /** `"sqlite"` or `"postgres"`. */
  readonly engine: EngineName;
  /** The SQL this engine speaks, for the table layer (`dialect.ts`). */
  readonly dialect: SqlDialect;
  /** Name (the key in `svc.databases`). */
  name: string;
  /** URL path segment. */
  route: string;
  /** File path, or null (memory databases, servers). */
  readonly path: string | null;
  /** True when writes may be attempted. */
  readonly is_mutable: boolean;
  /** True for in-memory databases. */
  readonly is_memory: boolean;
  /** When it was added while running, or null. */
  added_at: Date | null;
  /** A hash of contents that never change, or null. */
  readonly hash: string | null;
  /** Size in bytes (0 when unknown). */
  readonly size: number;
  /** How long a read may run, in milliseconds; null without a limit. */
  readonly time_limit_ms: number | null;
  /** Writes waiting in its queue. */
  readonly pending_writes: number;

  /** Runs a read query with the instance's limits. */
  execute(sql: string, params?: BindParams | null, options?: ExecuteOptions): Promise<Results>;
  /**
   * An export's query read chunk by chunk, in one snapshot and bounded memory; null when the
   * engine cannot stream it (the caller pages through instead).
   * @internal
   */
  exportCursor(
    sql: string,
    params: BindParams | null,
    options?: { custom_time_limit?: number | null },
  ): PoolCursor | null;
  /** @internal What the database holds now, for caches and `ETag`s; null when unknown. */
  contentsKey(): string | null;
  /**
   * Runs `fn` on a read connection: SQLite's synchronous `Connection`, or on PostgreSQL a
   * `PgConnection` in a `READ ONLY` transaction (its `execute` returns a Promise).
   */
  execute_fn<T>(fn: (conn: EngineConnection) => T | Promise<T>): Promise<T>;
  /** Runs one writing statement. */
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
  /** Runs `sql` once per parameter set, in one transaction. */
  execute_write_many(sql: string, params_seq: Iterable<BindParams>): Promise<WriteResult>;
  /** Runs a script of statements. */
  execute_write_script(sql: string): Promise<WriteResult>;
  /**
   * Runs `fn(conn)` with exclusive write access (SQLite's write connection), or on PostgreSQL in
   * a read-write transaction of its own (a `PgConnection`).
   */
  execute_write_fn<T>(fn: (conn: EngineConnection) => T): Promise<Awaited<T>>;
  /** `fn`'s result, or the task id when `options.block` is false. */
  execute_write_fn<T>(
    fn: (conn: EngineConnection) => T,
    options?: WriteFnOptions,
  ): Promise<Awaited<T> | string>;

  /**
   * How the write API writes rows on an engine without SQLite write connections; absent for
   * SQLite, whose row writes run on its write connection (`runWrite`).
   */
  readonly row_writes?: RowWrites;
  /** How `/-/create` and `/-/alter` change tables on such an engine; absent for SQLite. */
  readonly table_writes?: TableWrites;

  /** Attached databases (SQLite's `ATTACH`); none elsewhere. */
  attached_databases(): Promise<Row[]>;
  /** True when a table of that name exists. */
  table_exists(table: string): Promise<boolean>;
  /** True when a view of that name exists. */
  view_exists(view: string): Promise<boolean>;
  /** @internal True when reading `name` gives the same rows for the same data. */
  is_repeatable(name: string): Promise<boolean>;
  /**
   * @internal True when the read-only statement `sql` gives the same rows for the same data:
   * custom SQL whose answers may be kept and shared.
   */
  is_sql_repeatable(sql: string): Promise<boolean>;
  /** Table names. */
  table_names(): Promise<string[]>;
  /** View names. */
  view_names(): Promise<string[]>;
  /** Tables listed apart (search indexes, internal tables, `hidden: true`). */
  hidden_table_names(): Promise<string[]>;
  /** Why `table` cannot be read, or null. */
  table_unavailable(table: string): Promise<string | null>;
  /** Column names of a table or view. */
  table_columns(table: string): Promise<string[]>;
  /** Rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk`, `hidden`. */
  table_column_details(table: string): Promise<Row[]>;
  /** Primary key columns in key order; `[]` when there is none. */
  primary_keys(table: string): Promise<string[]>;
  /** The full-text table for `table`, or null. */
  fts_table(table: string): Promise<string | null>;
  /** The label column, or null. */
  label_column_for_table(table: string): Promise<string | null>;
  /** Outgoing foreign keys. */
  foreign_keys_for_table(table: string): Promise<ForeignKey[]>;
  /** The table's definition (`CREATE TABLE` and indexes), or null. */
  get_table_definition(table: string): Promise<string | null>;
  /** The view's definition, or null. */
  get_view_definition(view: string): Promise<string | null>;
  /** `{table: {incoming, outgoing}}` for every table. */
  get_all_foreign_keys(): Promise<Record<string, TableForeignKeys>>;

  /** Hands back memory held for speed. */
  releaseMemory(): void;
  /** Closes its connections. */
  close(): void;
  /** @internal Resolves once no write is queued or running. */
  drainWrites(): Promise<void>;
}
