/**
 * `DatabaseHost`: what a `Database` needs from the service that owns it. `Service` implements it;
 * `standaloneHost()` is a self-contained one for tests and scripts.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { ReadPool } from "./pool.ts";
import type { QueryCache } from "./query_cache.ts";

/** Settings the data layer reads, with their defaults. */
const DB_SETTING_DEFAULTS: Readonly<Record<string, unknown>> = {
  sql_time_limit_ms: 1000,
  max_returned_rows: 1000,
  num_sql_threads: 3,
  spare_sql_threads: 2,
  cache_size_kb: 0,
  max_returned_bytes: 10485760,
  write_lock_timeout_ms: 5000,
  wal_mode: true,
};

/** The service-side facilities a `Database` uses. */
export interface DatabaseHost {
  /** A configured setting: `sql_time_limit_ms`, `max_returned_rows`, `num_sql_threads`, ... */
  setting(key: string): unknown;
  /** The one read-worker pool shared by every database of the service. */
  readPool(): ReadPool;
  /** Runs `prepare_connection` hooks on a new main-thread connection. */
  prepareConnection(conn: Connection, databaseName: string): void;
  /** Metadata of one table (`label_column`, `hidden`, `fts_table`, `fts_pk`, ...); `{}` if none. */
  tableConfig(database: string, table: string): Record<string, unknown>;
  /** Module URLs each worker imports; their exported `prepare_connection` runs per connection. */
  pluginModules(): string[];
  /** The cache of immutable databases' query answers (`execute(…, { cache: true })`), if any. */
  queryCache?(): QueryCache | null;
  /** Records the time of a read query (waiting included) or a write task, for `/-/metrics`. */
  observeSql?(database: string, kind: "read" | "write", seconds: number): void;
  /** Records how long a write waited for another process's write lock. */
  observeLockWait?(database: string, seconds: number): void;
}

/** Options of {@link standaloneHost}. */
export interface StandaloneHostOptions {
  /** Setting overrides (`num_sql_threads: 0` keeps everything on the main thread). */
  settings?: Record<string, unknown>;
  /** Per-table metadata, as `{database: {table: config}}`. */
  tables?: Record<string, Record<string, Record<string, unknown>>>;
  /** Plugin module URLs for the workers. */
  pluginModules?: string[];
  /** Entry module of the read workers (needed when `pluginModules` is set; see ReadPoolOptions). */
  workerUrl?: string | URL;
  /** Main-thread `prepare_connection`. */
  prepareConnection?: (conn: Connection, databaseName: string) => void;
}

/** A host with default settings and its own pool; call `close()` on it when done. */
export interface StandaloneHost extends DatabaseHost {
  /** Terminates the pool's workers (if it was started). */
  close(): void;
}

/** A self-contained host for tests, scripts and `new Database(undefined, ...)`. */
export function standaloneHost(options: StandaloneHostOptions = {}): StandaloneHost {
  const settings = { ...DB_SETTING_DEFAULTS, ...options.settings };
  let pool: ReadPool | undefined;
  const host: StandaloneHost = {
    setting: (key) => settings[key],
    readPool() {
      pool ??= new ReadPool({
        size: Number(settings.num_sql_threads),
        spare: Number(settings.spare_sql_threads),
        cacheSizeKb: Number(settings.cache_size_kb),
        pluginModules: options.pluginModules ?? [],
        workerUrl: options.workerUrl,
      });
      return pool;
    },
    prepareConnection: (conn, name) => options.prepareConnection?.(conn, name),
    tableConfig: (database, table) => options.tables?.[database]?.[table] ?? {},
    pluginModules: () => options.pluginModules ?? [],
    close() {
      pool?.close();
      pool = undefined;
    },
  };
  return host;
}
