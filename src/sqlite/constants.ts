/**
 * Numeric constants from sqlite3.h that the binding uses.
 *
 * @module
 */

/** Primary result codes (the low byte of an extended code). */
export const SQLITE_OK = 0;
export const SQLITE_ERROR = 1;
export const SQLITE_BUSY = 5;
export const SQLITE_READONLY = 8;
export const SQLITE_INTERRUPT = 9;
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

/** `sqlite3_db_config` verb enabling the C-level `sqlite3_load_extension()` only. */
export const SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION = 1005;

/** Destructor value telling SQLite to copy the bytes before the call returns. */
export const SQLITE_TRANSIENT = -1n;
