/**
 * Numeric constants from sqlite3.h that the binding uses.
 *
 * @module
 */

/** Primary result codes (the low byte of an extended code). */
export const SQLITE_OK = 0;
export const SQLITE_ERROR = 1;
export const SQLITE_NOMEM = 7;
export const SQLITE_BUSY = 5;
export const SQLITE_READONLY = 8;
export const SQLITE_INTERRUPT = 9;
export const SQLITE_CORRUPT = 11;
export const SQLITE_TOOBIG = 18;
export const SQLITE_AUTH = 23;
export const SQLITE_CONSTRAINT = 19;
export const SQLITE_MISUSE = 21;
export const SQLITE_ROW = 100;
export const SQLITE_DONE = 101;

/** Fundamental datatypes returned by `sqlite3_column_type` / `sqlite3_value_type`. */
export const SQLITE_INTEGER = 1;
export const SQLITE_FLOAT = 2;
export const SQLITE_TEXT = 3;
export const SQLITE_BLOB = 4;
export const SQLITE_NULL = 5;

/** Flags for `sqlite3_open_v2`. */
export const SQLITE_OPEN_READONLY = 0x00000001;
export const SQLITE_OPEN_READWRITE = 0x00000002;
export const SQLITE_OPEN_CREATE = 0x00000004;
export const SQLITE_OPEN_URI = 0x00000040;
export const SQLITE_OPEN_MEMORY = 0x00000080;
export const SQLITE_OPEN_NOMUTEX = 0x00008000;

/** Text encoding / function flags for `sqlite3_create_function_v2`. */
export const SQLITE_UTF8 = 1;
export const SQLITE_DETERMINISTIC = 0x000000800;
/** The function may be used inside views, triggers and schema expressions when `trusted_schema=OFF`. */
export const SQLITE_INNOCUOUS = 0x000200000;

/** `sqlite3_db_config` verb enabling the C-level `sqlite3_load_extension()` only. */
export const SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION = 1005;
/** `sqlite3_db_config` verb: ordinary SQL may not corrupt the file (writable_schema etc.). */
export const SQLITE_DBCONFIG_DEFENSIVE = 1010;
/** `sqlite3_db_config` verb: 0 = schema (views, triggers) may only call innocuous functions. */
export const SQLITE_DBCONFIG_TRUSTED_SCHEMA = 1017;

/** Limit categories of `sqlite3_limit`. */
export const SQLITE_LIMIT_LENGTH = 0;
export const SQLITE_LIMIT_SQL_LENGTH = 1;
export const SQLITE_LIMIT_COLUMN = 2;
export const SQLITE_LIMIT_EXPR_DEPTH = 3;
export const SQLITE_LIMIT_COMPOUND_SELECT = 4;
export const SQLITE_LIMIT_VDBE_OP = 5;
export const SQLITE_LIMIT_FUNCTION_ARG = 6;
export const SQLITE_LIMIT_ATTACHED = 7;
export const SQLITE_LIMIT_LIKE_PATTERN_LENGTH = 8;
export const SQLITE_LIMIT_VARIABLE_NUMBER = 9;
export const SQLITE_LIMIT_TRIGGER_DEPTH = 10;
export const SQLITE_LIMIT_WORKER_THREADS = 11;

/** Authorizer answers. */
export const SQLITE_DENY = 1;

/** Authorizer action codes (the ones the visitor policy looks at). */
export const SQLITE_DELETE = 9;
export const SQLITE_INSERT = 18;
export const SQLITE_PRAGMA = 19;
export const SQLITE_READ = 20;
export const SQLITE_UPDATE = 23;
export const SQLITE_ATTACH = 24;
export const SQLITE_DETACH = 25;
export const SQLITE_FUNCTION = 31;

/** `sqlite3_stmt_status` counter: times the statement was compiled again by itself. */
export const SQLITE_STMTSTATUS_REPREPARE = 5;

/** Destructor value telling SQLite to copy the bytes before the call returns. */
export const SQLITE_TRANSIENT = -1n;
/** Destructor value telling SQLite the bytes stay where they are until it is done with them. */
export const SQLITE_STATIC = 0n;
