/**
 * The options of `Database`: how one is made (`DatabaseOptions`), and those of its `execute`,
 * `execute_write*` and `execute_write_fn` methods.
 *
 * @module
 */

import type { Database } from "./database.ts";
import type { RowsJsonRequest } from "./read_query.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";

/** Constructor options (the spec's keyword arguments, plus Vitrine's extras). */
export interface DatabaseOptions {
  /** Database file; omit for memory databases. */
  path?: string | null;
  /** Writable through `execute_write*` (default true). False opens reads with `immutable=1`. */
  is_mutable?: boolean;
  /** A private in-memory database (only this process's main thread can see it). */
  is_memory?: boolean;
  /** A named in-memory database shared by every connection (and worker) of the process. */
  memory_name?: string | null;
  /** `"ro"` refuses writes even for a mutable file (reads always use `mode=ro`). */
  mode?: "ro" | "rw" | "rwc" | null;
  /** Add `nolock=1` to read-only file opens (`--nolock`). */
  nolock?: boolean;
  /** Name; defaults to the file stem, the memory name, or `_memory`. */
  name?: string;
  /** URL path segment; defaults to the name. */
  route?: string;
  /**
   * The file's SHA-256 when already known (from `vitrine inspect`), so an immutable database is
   * not hashed again at start-up. Trusted as given.
   */
  hash?: string | null;
  /**
   * Cross-database queries (`--crossdb`): returns the databases to ATTACH, by name, to this
   * database's read connections (at most ten; private memory databases are skipped). Called per
   * query, so databases added later are picked up.
   */
  crossdb_attach?: () => Database[];
}

/** Options of `execute`. */
export interface ExecuteOptions {
  /** Cut the rows at the page size and report `truncated` (default true). */
  truncate?: boolean;
  /** Milliseconds; only ever lowers `sql_time_limit_ms`. */
  custom_time_limit?: number | null;
  /** Row cap when truncating; defaults to `max_returned_rows`. */
  page_size?: number | null;
  /** Print failing SQL to stderr as well as throwing (default true). */
  log_sql_errors?: boolean;
  /** Aborting cancels the query, queued or running (it then fails with `QueryInterrupted`). */
  signal?: AbortSignal;
  /**
   * Vitrine's JSON pages: also write the first rows as JSON where they are read (in the read
   * worker), ready to be sent as they are (`Results.page`).
   * @internal
   */
  json_rows?: RowsJsonRequest | null;
  /**
   * The same for `_stream=on` exports: the rows as CSV, TSV or NDJSON lines (`Results.page`).
   * @internal
   */
  text_rows?: TextRowsOptions | null;
  /**
   * False: limited only while it runs, not from the request's arrival (default true). For
   * Vitrine's own small queries (introspection), so that a busy queue never makes a page fail to
   * find its table, and for the capped counts that follow a timed-out count.
   */
  request_deadline?: boolean;
  /**
   * False: not held to `max_returned_bytes` (default true). For Vitrine's own reads of its
   * internal database (the catalog, edited metadata, column types): that cap keeps a visitor's
   * query from sending too much, and must not fail the reading of what a write just saved.
   * @internal
   */
  byte_cap?: boolean;
  /**
   * Vitrine's own deterministic queries (table pages, counts, facets, suggestions, labels):
   * answered from the service's query cache when it has the answer for what the file holds now
   * (an immutable file's hash, a mutable file's `data_version`, which every commit changes), and
   * kept there. Ignored for memory databases.
   */
  cache?: boolean;
  /**
   * SQL the instance's owner wrote (a canned query from the configuration or a plugin), not a
   * visitor: it may read any pragma (`PRAGMA cache_size`, `pragma_compile_options()`), where
   * visitor SQL may read only a few. Setting a pragma stays refused for both.
   * @internal
   */
  owner_sql?: boolean;
  /**
   * Vitrine's own queries that are small by nature (introspection of the schema): run on the
   * calling thread at once, as a text whose past runs were tiny would be, instead of waiting for a
   * worker. A fresh server has no past runs, and its first page asked a dozen of these one after
   * another, each a round trip to a worker (10–20 ms each on a loaded machine). One that runs
   * longer than the inline cap is still handed to a worker.
   * @internal
   */
  inline?: boolean;
}

/** `block: false` queues the write and returns a task id instead of waiting. */
export interface WriteOptions {
  /** Wait for the write to finish (default true); false returns a task id at once. */
  block?: boolean;
}

/** Options of `execute_write_fn`. */
export interface WriteFnOptions extends WriteOptions {
  /**
   * Vitrine's extra: run `fn` inside a transaction Vitrine opens and commits when `fn` returns
   * (rolls back when it throws). While another process writes the same file, Vitrine waits for
   * it without holding up other requests. `fn` must then not BEGIN or COMMIT itself (nested
   * transactions through `SAVEPOINT` are fine). Default false: `fn` commits itself.
   */
  transaction?: boolean;
}
