/**
 * Loading SQLite extension libraries through the C API. The SQL function `load_extension()`
 * stays disabled: only the embedding program (`--load-extension`) can load code.
 *
 * @module
 */

import { SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION } from "./constants.ts";
import { check, SqliteError } from "./errors.ts";
import { cString, readCString, sqlite } from "./ffi.ts";
import { isFile } from "../util/files.ts";

/** Loads the extension at `path` (entry point `entry`, or SQLite's default) into `db`. */
export function loadExtension(db: Deno.PointerValue, path: string, entry?: string): void {
  const lib = sqlite();
  if (!lib.sqlite3_load_extension) {
    throw new SqliteError("This SQLite library was built without extension loading", 1);
  }
  check(db, lib.sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, null));
  const errorOut = new BigUint64Array(1);
  const rc = lib.sqlite3_load_extension(
    db,
    cString(path),
    entry === undefined ? null : cString(entry),
    new Uint8Array(errorOut.buffer),
  );
  if (rc === 0) return;
  const errorPointer = Deno.UnsafePointer.create(errorOut[0]);
  let detail = readCString(errorPointer);
  if (errorPointer !== null) lib.sqlite3_free(errorPointer);
  // When the file itself fails to load, SQLite tries the name with the library suffix added
  // and reports only that attempt ("x.so.so: cannot open shared object file").
  const failedWithSuffix = detail?.startsWith(`${path}.`) &&
    /cannot open shared object|No such file/i.test(detail);
  if (failedWithSuffix && isFile(path)) {
    detail = "not a library this system can load (wrong format or architecture, or missing " +
      "dependencies)";
  }
  throw new SqliteError(
    `Could not load SQLite extension ${path}: ${detail ?? readCString(lib.sqlite3_errmsg(db))}`,
    rc,
  );
}
