/**
 * The one table of libsqlite3 symbols we call, and the lazy `dlopen` of the system library.
 *
 * Handles (`sqlite3*`, `sqlite3_stmt*`, `sqlite3_value*`, `sqlite3_context*`) are `"pointer"`;
 * strings and out-pointers we allocate are `"buffer"`; destructor arguments are `"isize"` so that
 * `SQLITE_TRANSIENT` (-1) can be passed as a plain number. No call is `nonblocking`: those cost
 * ~120 µs each (see notes/deno-tech.md).
 *
 * @module
 */

const symbols = {
  // const char *sqlite3_libversion(void);
  sqlite3_libversion: { parameters: [], result: "pointer" },
  // const char *sqlite3_compileoption_get(int N);
  sqlite3_compileoption_get: { parameters: ["i32"], result: "pointer" },
  // int sqlite3_open_v2(const char *filename, sqlite3 **ppDb, int flags, const char *zVfs);
  sqlite3_open_v2: { parameters: ["buffer", "buffer", "i32", "pointer"], result: "i32" },
  // int sqlite3_close_v2(sqlite3*);
  sqlite3_close_v2: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_extended_result_codes(sqlite3*, int onoff);
  sqlite3_extended_result_codes: { parameters: ["pointer", "i32"], result: "i32" },
  // const char *sqlite3_errmsg(sqlite3*);
  sqlite3_errmsg: { parameters: ["pointer"], result: "pointer" },
  // const char *sqlite3_errstr(int);
  sqlite3_errstr: { parameters: ["i32"], result: "pointer" },
  // int sqlite3_extended_errcode(sqlite3*);
  sqlite3_extended_errcode: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_exec(sqlite3*, const char *sql, callback, void *arg, char **errmsg);
  sqlite3_exec: {
    parameters: ["pointer", "buffer", "pointer", "pointer", "pointer"],
    result: "i32",
  },
  // int sqlite3_busy_timeout(sqlite3*, int ms);
  sqlite3_busy_timeout: { parameters: ["pointer", "i32"], result: "i32" },
  // int sqlite3_get_autocommit(sqlite3*);
  sqlite3_get_autocommit: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_changes(sqlite3*);
  sqlite3_changes: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_total_changes(sqlite3*);
  sqlite3_total_changes: { parameters: ["pointer"], result: "i32" },
  // sqlite3_int64 sqlite3_last_insert_rowid(sqlite3*);
  sqlite3_last_insert_rowid: { parameters: ["pointer"], result: "i64" },
  // void sqlite3_interrupt(sqlite3*);
  sqlite3_interrupt: { parameters: ["pointer"], result: "void" },
  // void sqlite3_progress_handler(sqlite3*, int nOps, int (*)(void*), void *arg);
  sqlite3_progress_handler: {
    parameters: ["pointer", "i32", "function", "pointer"],
    result: "void",
  },
  // int sqlite3_db_config(sqlite3*, int op, ...);  called as (db, op, int, int*)
  sqlite3_db_config: { parameters: ["pointer", "i32", "i32", "pointer"], result: "i32" },
  // int sqlite3_load_extension(sqlite3*, const char *zFile, const char *zProc, char **pzErrMsg);
  sqlite3_load_extension: {
    parameters: ["pointer", "buffer", "buffer", "buffer"],
    result: "i32",
    optional: true,
  },
  // int sqlite3_limit(sqlite3*, int id, int newVal);
  sqlite3_limit: { parameters: ["pointer", "i32", "i32"], result: "i32" },
  // int sqlite3_set_authorizer(sqlite3*, int (*xAuth)(void*, int, const char*, const char*,
  //                            const char*, const char*), void *pUserData);
  sqlite3_set_authorizer: { parameters: ["pointer", "function", "pointer"], result: "i32" },
  // sqlite3_int64 sqlite3_hard_heap_limit64(sqlite3_int64 N);  (3.31+)
  sqlite3_hard_heap_limit64: { parameters: ["i64"], result: "i64", optional: true },
  // int sqlite3_db_release_memory(sqlite3*);  (3.7.10+)
  sqlite3_db_release_memory: { parameters: ["pointer"], result: "i32", optional: true },
  // sqlite3_int64 sqlite3_memory_used(void);
  sqlite3_memory_used: { parameters: [], result: "i64" },
  // sqlite3_int64 sqlite3_memory_highwater(int resetFlag);
  sqlite3_memory_highwater: { parameters: ["i32"], result: "i64" },
  // sqlite3_str *sqlite3_str_new(sqlite3*);  (3.25+, like the four below: exports read
  // text without making strings of it, `cell_batch.ts`)
  sqlite3_str_new: { parameters: ["pointer"], result: "pointer", optional: true },
  // void sqlite3_str_append(sqlite3_str*, const char *zIn, int N);
  sqlite3_str_append: { parameters: ["pointer", "pointer", "i32"], result: "void", optional: true },
  // void sqlite3_str_reset(sqlite3_str*);
  sqlite3_str_reset: { parameters: ["pointer"], result: "void", optional: true },
  // int sqlite3_str_errcode(sqlite3_str*);
  sqlite3_str_errcode: { parameters: ["pointer"], result: "i32", optional: true },
  // char *sqlite3_str_value(sqlite3_str*);
  sqlite3_str_value: { parameters: ["pointer"], result: "pointer", optional: true },
  // void *sqlite3_preupdate_hook(sqlite3*, void(*)(void*, sqlite3*, int op, const char *zDb,
  //   const char *zName, sqlite3_int64 iKey1, sqlite3_int64 iKey2), void*);  and the four
  // readers below: only in libraries built with SQLITE_ENABLE_PREUPDATE_HOOK, as Debian's is;
  // without them writes are not recorded in the history (`preupdate.ts`)
  sqlite3_preupdate_hook: {
    parameters: ["pointer", "function", "pointer"],
    result: "pointer",
    optional: true,
  },
  // int sqlite3_preupdate_old(sqlite3*, int, sqlite3_value**);
  sqlite3_preupdate_old: {
    parameters: ["pointer", "i32", "buffer"],
    result: "i32",
    optional: true,
  },
  // int sqlite3_preupdate_new(sqlite3*, int, sqlite3_value**);
  sqlite3_preupdate_new: {
    parameters: ["pointer", "i32", "buffer"],
    result: "i32",
    optional: true,
  },
  // int sqlite3_preupdate_count(sqlite3*);
  sqlite3_preupdate_count: { parameters: ["pointer"], result: "i32", optional: true },
  // void sqlite3_free(void*);
  sqlite3_free: { parameters: ["pointer"], result: "void" },

  // int sqlite3_prepare_v3(sqlite3*, const char *zSql, int nByte, unsigned int prepFlags,
  //                        sqlite3_stmt **ppStmt, const char **pzTail);
  sqlite3_prepare_v3: {
    parameters: ["pointer", "buffer", "i32", "u32", "buffer", "buffer"],
    result: "i32",
  },
  // int sqlite3_finalize(sqlite3_stmt*);
  sqlite3_finalize: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_reset(sqlite3_stmt*);
  sqlite3_reset: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_clear_bindings(sqlite3_stmt*);
  sqlite3_clear_bindings: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_step(sqlite3_stmt*);
  sqlite3_step: { parameters: ["pointer"], result: "i32" },
  // int sqlite3_stmt_status(sqlite3_stmt*, int op, int resetFlg);
  sqlite3_stmt_status: { parameters: ["pointer", "i32", "i32"], result: "i32" },
  // int sqlite3_stmt_readonly(sqlite3_stmt*);
  sqlite3_stmt_readonly: { parameters: ["pointer"], result: "i32" },

  // int sqlite3_bind_parameter_count(sqlite3_stmt*);
  sqlite3_bind_parameter_count: { parameters: ["pointer"], result: "i32" },
  // const char *sqlite3_bind_parameter_name(sqlite3_stmt*, int);
  sqlite3_bind_parameter_name: { parameters: ["pointer", "i32"], result: "pointer" },
  // int sqlite3_bind_null(sqlite3_stmt*, int);
  sqlite3_bind_null: { parameters: ["pointer", "i32"], result: "i32" },
  // int sqlite3_bind_int64(sqlite3_stmt*, int, sqlite3_int64);
  sqlite3_bind_int64: { parameters: ["pointer", "i32", "i64"], result: "i32" },
  // int sqlite3_bind_double(sqlite3_stmt*, int, double);
  sqlite3_bind_double: { parameters: ["pointer", "i32", "f64"], result: "i32" },
  // int sqlite3_bind_text(sqlite3_stmt*, int, const char*, int n, void (*)(void*));
  sqlite3_bind_text: {
    parameters: ["pointer", "i32", "buffer", "i32", "isize"],
    result: "i32",
  },
  // The same function given the text's address as a number (`bindTextAt`): a value inside a
  // larger buffer is bound without a view object made for it.
  sqlite3_bind_text_at: {
    name: "sqlite3_bind_text",
    parameters: ["pointer", "i32", "usize", "i32", "isize"],
    result: "i32",
  },
  // int sqlite3_bind_blob(sqlite3_stmt*, int, const void*, int n, void (*)(void*));
  sqlite3_bind_blob: {
    parameters: ["pointer", "i32", "buffer", "i32", "isize"],
    result: "i32",
  },

  // int sqlite3_bind_zeroblob(sqlite3_stmt*, int, int n);
  sqlite3_bind_zeroblob: { parameters: ["pointer", "i32", "i32"], result: "i32" },

  // int sqlite3_column_count(sqlite3_stmt*);
  sqlite3_column_count: { parameters: ["pointer"], result: "i32" },
  // const char *sqlite3_column_name(sqlite3_stmt*, int N);
  sqlite3_column_name: { parameters: ["pointer", "i32"], result: "pointer" },
  // const char *sqlite3_column_decltype(sqlite3_stmt*, int);
  sqlite3_column_decltype: { parameters: ["pointer", "i32"], result: "pointer" },
  // const char *sqlite3_column_table_name(sqlite3_stmt*, int);  (and _origin_name, _database_name:
  // only in libraries built with SQLITE_ENABLE_COLUMN_METADATA, as Debian's is; without them,
  // query results simply have no links)
  sqlite3_column_table_name: { parameters: ["pointer", "i32"], result: "pointer", optional: true },
  sqlite3_column_origin_name: { parameters: ["pointer", "i32"], result: "pointer", optional: true },
  sqlite3_column_database_name: {
    parameters: ["pointer", "i32"],
    result: "pointer",
    optional: true,
  },
  // int sqlite3_column_type(sqlite3_stmt*, int iCol);
  sqlite3_column_type: { parameters: ["pointer", "i32"], result: "i32" },
  // double sqlite3_column_double(sqlite3_stmt*, int iCol);
  sqlite3_column_double: { parameters: ["pointer", "i32"], result: "f64" },
  // sqlite3_int64 sqlite3_column_int64(sqlite3_stmt*, int iCol);
  sqlite3_column_int64: { parameters: ["pointer", "i32"], result: "i64" },
  // const unsigned char *sqlite3_column_text(sqlite3_stmt*, int iCol);
  sqlite3_column_text: { parameters: ["pointer", "i32"], result: "pointer" },
  // const void *sqlite3_column_blob(sqlite3_stmt*, int iCol);
  sqlite3_column_blob: { parameters: ["pointer", "i32"], result: "pointer" },
  // int sqlite3_column_bytes(sqlite3_stmt*, int iCol);
  sqlite3_column_bytes: { parameters: ["pointer", "i32"], result: "i32" },

  // int sqlite3_create_function_v2(sqlite3*, const char *zName, int nArg, int eTextRep,
  //   void *pApp, xFunc, xStep, xFinal, void (*xDestroy)(void*));
  sqlite3_create_function_v2: {
    parameters: [
      "pointer",
      "buffer",
      "i32",
      "i32",
      "pointer",
      "function",
      "function",
      "function",
      "pointer",
    ],
    result: "i32",
  },
  // int sqlite3_create_collation_v2(sqlite3*, const char *zName, int eTextRep, void *pArg,
  //   int (*xCompare)(void*, int, const void*, int, const void*), void (*xDestroy)(void*));
  sqlite3_create_collation_v2: {
    parameters: ["pointer", "buffer", "i32", "pointer", "function", "pointer"],
    result: "i32",
  },
  // void *sqlite3_aggregate_context(sqlite3_context*, int nBytes);
  sqlite3_aggregate_context: { parameters: ["pointer", "i32"], result: "pointer" },
  // int sqlite3_value_type(sqlite3_value*);
  sqlite3_value_type: { parameters: ["pointer"], result: "i32" },
  // double sqlite3_value_double(sqlite3_value*);
  sqlite3_value_double: { parameters: ["pointer"], result: "f64" },
  // sqlite3_int64 sqlite3_value_int64(sqlite3_value*);
  sqlite3_value_int64: { parameters: ["pointer"], result: "i64" },
  // const unsigned char *sqlite3_value_text(sqlite3_value*);
  sqlite3_value_text: { parameters: ["pointer"], result: "pointer" },
  // const void *sqlite3_value_blob(sqlite3_value*);
  sqlite3_value_blob: { parameters: ["pointer"], result: "pointer" },
  // int sqlite3_value_bytes(sqlite3_value*);
  sqlite3_value_bytes: { parameters: ["pointer"], result: "i32" },
  // void sqlite3_result_null(sqlite3_context*);
  sqlite3_result_null: { parameters: ["pointer"], result: "void" },
  // void sqlite3_result_int64(sqlite3_context*, sqlite3_int64);
  sqlite3_result_int64: { parameters: ["pointer", "i64"], result: "void" },
  // void sqlite3_result_double(sqlite3_context*, double);
  sqlite3_result_double: { parameters: ["pointer", "f64"], result: "void" },
  // void sqlite3_result_text(sqlite3_context*, const char*, int n, void (*)(void*));
  sqlite3_result_text: {
    parameters: ["pointer", "buffer", "i32", "isize"],
    result: "void",
  },
  // void sqlite3_result_blob(sqlite3_context*, const void*, int n, void (*)(void*));
  sqlite3_result_blob: {
    parameters: ["pointer", "buffer", "i32", "isize"],
    result: "void",
  },
  // void sqlite3_result_zeroblob(sqlite3_context*, int n);
  sqlite3_result_zeroblob: { parameters: ["pointer", "i32"], result: "void" },
  // void sqlite3_result_error(sqlite3_context*, const char*, int n);
  sqlite3_result_error: { parameters: ["pointer", "buffer", "i32"], result: "void" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The typed symbol table of the loaded library. */
export type SqliteSymbols = Deno.DynamicLibrary<typeof symbols>["symbols"];

/** Default library name: the Debian/Ubuntu `libsqlite3-0` package. */
export const DEFAULT_LIBRARY = "libsqlite3.so.0";

let loaded: SqliteSymbols | undefined;

/** Path of the library to load: `VITRINE_SQLITE_LIB` when set, else {@link DEFAULT_LIBRARY}. */
export function libraryPath(): string {
  try {
    return Deno.env.get("VITRINE_SQLITE_LIB") || DEFAULT_LIBRARY;
  } catch {
    // Without env permission we simply use the default.
    return DEFAULT_LIBRARY;
  }
}

/**
 * The libsqlite3 symbols, loading the library on first use (once per thread).
 * Throws an Error naming the path tried and how to install the library.
 */
export function sqlite(): SqliteSymbols {
  if (loaded) return loaded;
  const path = libraryPath();
  try {
    loaded = Deno.dlopen(path, symbols).symbols;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not load the SQLite library "${path}" (${reason}). ` +
        `Install it with "apt-get install libsqlite3-0", ` +
        `or set VITRINE_SQLITE_LIB to the path of a libsqlite3 shared library.`,
    );
  }
  return loaded;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text` followed by a NUL terminator, for `const char*` arguments. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text + "\0");
}

/** Reads a NUL-terminated C string, or null for a NULL pointer. */
export function readCString(pointer: Deno.PointerValue): string | null {
  return pointer === null ? null : Deno.UnsafePointerView.getCString(pointer);
}
