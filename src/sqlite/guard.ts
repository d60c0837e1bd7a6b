/**
 * Defences for SQL and database files from people the server does not trust, following SQLite's
 * "Defense Against the Dark Arts" (docs/security.md walks through it point by point):
 *
 * - every connection: `SQLITE_DBCONFIG_DEFENSIVE` on, `trusted_schema` off, `cell_size_check`
 *   on and `mmap_size` 0 ({@link defend});
 * - visitor SQL: lower `sqlite3_limit` caps ({@link VISITOR_LIMITS}) and an authorizer
 *   ({@link VisitorAuthorizer}) that refuses functions and tables which read or write files or
 *   leak memory addresses, ATTACH/DETACH, schema changes and pragmas with side effects;
 * - the process: a hard limit on SQLite's heap ({@link setHardHeapLimit}).
 *
 * The authorizer runs while a statement is prepared, never per row, so a long scan costs the same
 * with it as without (bench/sqlite_guard.ts measures it).
 *
 * @module
 */

import {
  SQLITE_DBCONFIG_DEFENSIVE,
  SQLITE_DBCONFIG_TRUSTED_SCHEMA,
  SQLITE_DELETE,
  SQLITE_DENY,
  SQLITE_FUNCTION,
  SQLITE_INSERT,
  SQLITE_LIMIT_ATTACHED,
  SQLITE_LIMIT_COLUMN,
  SQLITE_LIMIT_COMPOUND_SELECT,
  SQLITE_LIMIT_EXPR_DEPTH,
  SQLITE_LIMIT_FUNCTION_ARG,
  SQLITE_LIMIT_LENGTH,
  SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
  SQLITE_LIMIT_SQL_LENGTH,
  SQLITE_LIMIT_TRIGGER_DEPTH,
  SQLITE_LIMIT_VARIABLE_NUMBER,
  SQLITE_LIMIT_VDBE_OP,
  SQLITE_LIMIT_WORKER_THREADS,
  SQLITE_OK,
  SQLITE_PRAGMA,
  SQLITE_READ,
  SQLITE_UPDATE,
} from "./constants.ts";
import { check } from "./errors.ts";
import { readCString, sqlite } from "./ffi.ts";

/** The `sqlite3_limit` categories, by name. */
export interface SqlLimits {
  /** Longest string or BLOB, in bytes (also any row being built). */
  length: number;
  /** Longest SQL text, in bytes. */
  sqlLength: number;
  /** Most columns in a result, index, GROUP BY or ORDER BY. */
  column: number;
  /** Deepest expression tree. */
  exprDepth: number;
  /** Most terms in a compound SELECT (UNION …); multi-row VALUES is exempt. */
  compoundSelect: number;
  /** Most instructions in one compiled statement. */
  vdbeOp: number;
  /** Most arguments to one function call. */
  functionArg: number;
  /** Most ATTACHed databases (checked at ATTACH time only). */
  attached: number;
  /** Longest LIKE or GLOB pattern. */
  likePatternLength: number;
  /** Highest parameter number. */
  variableNumber: number;
  /** Deepest trigger recursion. */
  triggerDepth: number;
  /** Auxiliary threads one statement may start (sorting). */
  workerThreads: number;
}

const CATEGORY: Record<keyof SqlLimits, number> = {
  length: SQLITE_LIMIT_LENGTH,
  sqlLength: SQLITE_LIMIT_SQL_LENGTH,
  column: SQLITE_LIMIT_COLUMN,
  exprDepth: SQLITE_LIMIT_EXPR_DEPTH,
  compoundSelect: SQLITE_LIMIT_COMPOUND_SELECT,
  vdbeOp: SQLITE_LIMIT_VDBE_OP,
  functionArg: SQLITE_LIMIT_FUNCTION_ARG,
  attached: SQLITE_LIMIT_ATTACHED,
  likePatternLength: SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
  variableNumber: SQLITE_LIMIT_VARIABLE_NUMBER,
  triggerDepth: SQLITE_LIMIT_TRIGGER_DEPTH,
  workerThreads: SQLITE_LIMIT_WORKER_THREADS,
};

/**
 * Caps for SQL written by visitors (custom SQL, `_where=`, filters, facets), between SQLite's
 * defaults and its "high-security" suggestions: low enough to stop absurd inputs, high enough for
 * the SQL Vitrine itself builds for tables of many columns and filters. `length` is not here: it
 * comes from the `max_returned_bytes` setting with each query. `column` and `functionArg` stay at
 * this build's maximum (2000, 127) because real tables are that wide and `json_object()` takes
 * many arguments; the SQL length cap bounds both anyway.
 */
export const VISITOR_LIMITS: Readonly<Omit<SqlLimits, "length">> = {
  sqlLength: 100_000,
  column: 2000,
  exprDepth: 100,
  compoundSelect: 50,
  vdbeOp: 250_000,
  functionArg: 127,
  attached: 0,
  likePatternLength: 1000,
  variableNumber: 1000,
  triggerDepth: 10,
  workerThreads: 0,
};

/**
 * Sets the given limits on connection `db` and returns their previous values (to restore them).
 * SQLite silently lowers a value above the build's maximum to that maximum.
 */
export function setLimits(db: Deno.PointerValue, limits: Partial<SqlLimits>): Partial<SqlLimits> {
  const lib = sqlite();
  const previous: Partial<SqlLimits> = {};
  for (const [name, value] of Object.entries(limits) as [keyof SqlLimits, number][]) {
    previous[name] = lib.sqlite3_limit(db, CATEGORY[name], Math.min(value, 0x7fffffff));
  }
  return previous;
}

/** The current value of every limit on `db`. */
export function readLimits(db: Deno.PointerValue): SqlLimits {
  const lib = sqlite();
  const limits = {} as SqlLimits;
  for (const [name, category] of Object.entries(CATEGORY) as [keyof SqlLimits, number][]) {
    limits[name] = lib.sqlite3_limit(db, category, -1);
  }
  return limits;
}

/**
 * Turns on `SQLITE_DBCONFIG_DEFENSIVE` (no `writable_schema`, no `journal_mode=OFF`, no writes
 * to shadow tables or `schema_version`) and turns off `trusted_schema` (views, triggers, CHECK
 * constraints and generated columns in a file may only call innocuous functions and virtual
 * tables), as soon as a connection is opened.
 */
export function defend(db: Deno.PointerValue): void {
  const lib = sqlite();
  check(db, lib.sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, null));
  check(db, lib.sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, null));
  // Also from SQLite's list for files of uncertain origin: check each b-tree cell's size as the
  // page is read (no measurable cost on a 500k-row scan), and never memory-map the file, even
  // with a library built to do so by default.
  check(db, lib.sqlite3_exec(db, PRAGMAS, null, null, null));
}

const PRAGMAS = new TextEncoder().encode("pragma cell_size_check = on; pragma mmap_size = 0;\0");

/**
 * Functions visitor SQL may not call: `fts3_tokenizer` hands out (and, in this build, accepts)
 * raw memory addresses; the rest read or write files or load code when an extension or the shell
 * provides them.
 */
export const DENIED_FUNCTIONS: ReadonlySet<string> = new Set([
  "fts3_tokenizer",
  "load_extension",
  "readfile",
  "writefile",
  "edit",
  "lsdir",
]);

/**
 * Tables (virtual, from extensions) that read the file system or the raw file, or show the SQL
 * of statements prepared on the connection.
 */
export const DENIED_TABLES: ReadonlySet<string> = new Set([
  "fsdir",
  "lsdir",
  "zipfile",
  "sqlite_dbpage",
  "sqlite_dbdata",
  "sqlite_dbptr",
  "sqlite_stmt",
]);

/** Pragmas visitor SQL may read (as `pragma_x(...)` functions or otherwise). */
const READABLE_PRAGMAS = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
  "database_list",
  "function_list",
  "module_list",
  "pragma_list",
  "collation_list",
  "compile_options",
  "page_count",
  "page_size",
  "max_page_count",
  "freelist_count",
  "schema_version",
  "user_version",
  "data_version",
  "application_id",
  "encoding",
  "journal_mode",
  "auto_vacuum",
  "foreign_keys",
]);

/** Of those, the ones whose argument names a table or index rather than setting a value. */
const PRAGMAS_WITH_ARGUMENT = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
]);

/**
 * Actions a visitor statement may take; every other action code is denied. Row changes are
 * allowed here because virtual tables (FTS, R*Tree) prepare their own INSERT/DELETE statements on
 * first use, which pass through the same authorizer; the visitor's own statement is refused if it
 * is not read-only (`Connection.restricted`), and read connections are read-only anyway.
 */
const ALWAYS_ALLOWED = new Set([
  SQLITE_DELETE,
  SQLITE_INSERT,
  SQLITE_UPDATE,
  21, // SQLITE_SELECT
  22, // SQLITE_TRANSACTION (BEGIN/COMMIT on a read connection changes nothing)
  32, // SQLITE_SAVEPOINT
  33, // SQLITE_RECURSIVE
]);

const AUTHORIZER = {
  parameters: ["pointer", "i32", "pointer", "pointer", "pointer", "pointer"],
  result: "i32",
} as const;

/**
 * Decides one authorizer call for visitor SQL. Exported for tests; `arg1`/`arg2` are the
 * action's two detail strings (table and column, pragma and value, …).
 */
export function visitorDecision(
  action: number,
  arg1: string | null,
  arg2: string | null,
  owner = false,
): number {
  if (ALWAYS_ALLOWED.has(action)) return SQLITE_OK;
  switch (action) {
    case SQLITE_READ:
      return arg1 !== null && DENIED_TABLES.has(arg1.toLowerCase()) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_FUNCTION:
      return arg2 !== null && DENIED_FUNCTIONS.has(arg2.toLowerCase()) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA: {
      const name = (arg1 ?? "").toLowerCase();
      // SQL the owner wrote (a canned query) may read any pragma (`PRAGMA cache_size`); setting
      // one would change a read connection every later query shares, so nobody may.
      if (!owner && !READABLE_PRAGMAS.has(name)) return SQLITE_DENY;
      return arg2 === null || PRAGMAS_WITH_ARGUMENT.has(name) ? SQLITE_OK : SQLITE_DENY;
    }
    default:
      return SQLITE_DENY;
  }
}

/**
 * The visitor policy as an authorizer on one connection, switched on only while visitor SQL is
 * prepared. The callback belongs to the thread that created it.
 */
export class VisitorAuthorizer {
  #db: Deno.PointerValue;
  #callback: Deno.UnsafeCallback<typeof AUTHORIZER> | null = null;
  /**
   * The policy of the statements being prepared. Switching it goes through `set`, whose
   * `sqlite3_set_authorizer` expires every compiled statement: none prepared under one policy is
   * run under the other.
   */
  #owner = false;

  /** An authorizer for connection `db`, initially off. */
  constructor(db: Deno.PointerValue) {
    this.#db = db;
  }

  /** Installs (true) or removes (false) the authorizer; `owner` for SQL the owner wrote. */
  set(on: boolean, owner = false): void {
    const lib = sqlite();
    if (!on) {
      check(this.#db, lib.sqlite3_set_authorizer(this.#db, null, null));
      return;
    }
    // Called once per action while a statement is prepared (every column read is one), never
    // per row: about 1–2 µs a call, the cost of crossing from C into JS.
    this.#owner = owner;
    this.#callback ??= new Deno.UnsafeCallback(AUTHORIZER, (_data, action, a1, a2) => {
      if (ALWAYS_ALLOWED.has(action)) return SQLITE_OK;
      return visitorDecision(
        action,
        readCString(a1),
        action === SQLITE_READ ? null : readCString(a2),
        this.#owner,
      );
    });
    check(this.#db, lib.sqlite3_set_authorizer(this.#db, this.#callback.pointer, null));
  }

  /** Frees the callback; call after the connection is closed. */
  close(): void {
    this.#callback?.close();
    this.#callback = null;
  }
}

/**
 * Sets the process-wide hard limit on SQLite's heap in bytes (0 removes it) and returns the
 * previous limit. Past it, allocations fail and the statement ends with "out of memory". Returns
 * -1 when the library predates `sqlite3_hard_heap_limit64` (3.31).
 */
export function setHardHeapLimit(bytes: number): number {
  const lib = sqlite();
  if (!lib.sqlite3_hard_heap_limit64) return -1;
  return Number(lib.sqlite3_hard_heap_limit64(BigInt(Math.max(0, Math.floor(bytes)))));
}

/** The hard heap limit in force, in bytes (0: none; -1: not supported by the library). */
export function hardHeapLimit(): number {
  const lib = sqlite();
  if (!lib.sqlite3_hard_heap_limit64) return -1;
  return Number(lib.sqlite3_hard_heap_limit64(-1n));
}

/** Bytes SQLite has allocated right now, across every connection of the process. */
export function sqliteMemoryUsed(): number {
  return Number(sqlite().sqlite3_memory_used());
}
