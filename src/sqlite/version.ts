/**
 * Facts about the loaded SQLite library, for `/-/versions`.
 *
 * @module
 */

import { readCString, sqlite } from "./ffi.ts";

/** The library's version, e.g. "3.40.1". */
export function sqliteVersion(): string {
  return readCString(sqlite().sqlite3_libversion()) ?? "";
}

/** The library's compile-time options, e.g. ["ENABLE_FTS5", "THREADSAFE=1", ...]. */
export function compileOptions(): string[] {
  const lib = sqlite();
  const options: string[] = [];
  for (let i = 0;; i++) {
    const option = readCString(lib.sqlite3_compileoption_get(i));
    if (option === null) return options;
    options.push(option);
  }
}
