/**
 * Building the `file:` URI and flags passed to `sqlite3_open_v2` for each open mode.
 *
 * @module
 */

import {
  SQLITE_OPEN_CREATE,
  SQLITE_OPEN_NOMUTEX,
  SQLITE_OPEN_READONLY,
  SQLITE_OPEN_READWRITE,
  SQLITE_OPEN_URI,
} from "./constants.ts";

/** How to open a database; see `Connection.open`. */
export interface OpenOptions {
  /** "rwc" read-write, create if missing (default); "rw" read-write existing; "ro" read-only. */
  mode?: "rwc" | "rw" | "ro";
  /** Open read-only with `immutable=1`: no locking, no change detection. */
  immutable?: boolean;
  /** A private in-memory database (also implied by the path `:memory:`). */
  memory?: boolean;
  /** A named in-memory database shared by every connection of the process that uses the name. */
  memoryName?: string;
  /** Add `nolock=1` (read-only opens of files on filesystems without locking). */
  nolock?: boolean;
}

/** The filename (a URI) and flags for `sqlite3_open_v2`. */
export interface OpenTarget {
  uri: string;
  flags: number;
}

// Each connection is used from one thread only, so SQLite's per-call mutex is pure overhead
// (it is taken on every column read). sqlite3_interrupt stays safe from other threads.
const BASE_FLAGS = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;

/**
 * Escapes a filesystem path for the path part of a `file:` URI: `%`, `?`, `#`, spaces and other
 * unsafe characters become %XX, `/` stays.
 */
export function escapeUriPath(path: string): string {
  const escaped = path.split("/").map((part) => encodeURIComponent(part)).join("/");
  // "file://x" would make x an authority; collapse leading slashes to one.
  return escaped.replace(/^\/{2,}/, "/");
}

/** Works out the URI and flags for opening `path` with `options`. */
export function openTarget(path: string, options: OpenOptions = {}): OpenTarget {
  if (options.memoryName !== undefined) {
    const name = encodeURIComponent(options.memoryName);
    return {
      uri: `file:${name}?mode=memory&cache=shared`,
      flags: BASE_FLAGS | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
    };
  }
  if (options.memory || path === ":memory:") {
    return { uri: ":memory:", flags: BASE_FLAGS | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE };
  }
  const query: string[] = [];
  let flags = BASE_FLAGS;
  if (options.immutable) {
    query.push("immutable=1");
    flags |= SQLITE_OPEN_READONLY;
  } else if (options.mode === "ro") {
    query.push("mode=ro");
    flags |= SQLITE_OPEN_READONLY;
  } else if (options.mode === "rw") {
    flags |= SQLITE_OPEN_READWRITE;
  } else {
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  }
  if (options.nolock) query.push("nolock=1");
  const uri = `file:${escapeUriPath(path)}` + (query.length ? `?${query.join("&")}` : "");
  return { uri, flags };
}
