/**
 * The start-up check of a database file, so that a damaged or foreign file is refused with a
 * clear message before any visitor reaches it, rather than failing page by page later.
 *
 * Cost is what decides how deep the check goes: reading the 100-byte header and the schema is
 * constant time, so every file gets it; `PRAGMA quick_check` reads every page (about a second per
 * GB here), so only files up to `startup_check_max_mb` get it. A big immutable file is best
 * checked once, when it is built (`sqlite3 big.db 'pragma quick_check'`), not at every start.
 *
 * @module
 */

import { Connection, isInterrupted } from "../sqlite/connection.ts";

/** A file that is not a usable SQLite database; the message says which file and why. */
export class CorruptDatabase extends Error {
  /** Builds the error for `path` with the `reason` found. */
  constructor(readonly path: string, readonly reason: string) {
    super(`${path} is not a usable SQLite database: ${reason}`);
    this.name = "CorruptDatabase";
  }
}

/** How deep to look. */
export interface FileCheckOptions {
  /** Open with `immutable=1` (the file never changes). */
  immutable?: boolean;
  /** The file lives where locking does not work (`--nolock`): no read-write recovery open. */
  nolock?: boolean;
  /** Run `PRAGMA quick_check` when the file is at most this many bytes (0: never). */
  quickCheckMaxBytes?: number;
  /** Time limit for the quick check, in milliseconds (default 60 s). */
  quickCheckTimeLimitMs?: number;
}

/** What the check did, for the start-up log. */
export interface FileCheckReport {
  size: number;
  quickCheck: boolean;
}

const MAGIC = "SQLite format 3\0";
const HEADER_BYTES = 100;

/** Reasons the 100-byte header is not one SQLite writes; null when it looks right. */
export function headerProblem(header: Uint8Array, fileSize: number): string | null {
  if (header.length < HEADER_BYTES) {
    return `the file is ${fileSize} bytes long, shorter than a database header`;
  }
  if (new TextDecoder().decode(header.subarray(0, 16)) !== MAGIC) {
    return 'it does not start with "SQLite format 3"';
  }
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return `the header gives an impossible page size (${rawPageSize})`;
  }
  const readVersion = header[19];
  if (readVersion !== 1 && readVersion !== 2) {
    return `the header's file format version (${readVersion}) is not one this SQLite reads`;
  }
  if (header[21] !== 64 || header[22] !== 32 || header[23] !== 32) {
    return "the header's payload fractions are not SQLite's fixed values";
  }
  if (pageSize - header[20] < 480) return "the header reserves too many bytes per page";
  const schemaFormat = view.getUint32(44);
  if (schemaFormat > 4) return `the header's schema format (${schemaFormat}) is unknown`;
  const encoding = view.getUint32(56);
  if (encoding > 3) return `the header's text encoding (${encoding}) is unknown`;
  // The page count in the header is valid when "version-valid-for" matches the change counter.
  const pages = view.getUint32(28);
  if (pages > 0 && view.getUint32(92) === view.getUint32(24) && pages * pageSize > fileSize) {
    return `the file is truncated: its header counts ${pages} pages of ${pageSize} bytes ` +
      `(${pages * pageSize} bytes) but the file has ${fileSize}`;
  }
  if (fileSize % pageSize !== 0) {
    return `its size (${fileSize} bytes) is not a whole number of ${pageSize}-byte pages`;
  }
  return null;
}

function readHeader(path: string): { header: Uint8Array; size: number } {
  using file = Deno.openSync(path, { read: true });
  const size = file.statSync().size;
  const header = new Uint8Array(Math.min(HEADER_BYTES, size));
  let read = 0;
  while (read < header.length) {
    const n = file.readSync(header.subarray(read));
    if (n === null || n === 0) break;
    read += n;
  }
  return { header: header.subarray(0, read), size };
}

/**
 * Checks the file at `path`: header, schema, and `quick_check` when small enough. An empty file
 * passes (SQLite treats it as an empty database). Throws {@link CorruptDatabase}; a file that
 * cannot be read at all throws the file system's error; a missing file passes (the first write
 * creates it).
 */
export function checkDatabaseFile(path: string, options: FileCheckOptions = {}): FileCheckReport {
  // A mutable file left mid-transaction by a crash (kill -9, power loss) has a hot journal that
  // only a read-write connection rolls back; until then its header may describe the unfinished
  // transaction. So recover first, then judge the header.
  if (!exists(path)) return { size: 0, quickCheck: false };
  const recovery = options.immutable || options.nolock ? null : recover(path);
  const { header, size } = readHeader(path);
  if (size === 0) return { size, quickCheck: false };
  const problem = headerProblem(header, size);
  if (problem) throw new CorruptDatabase(path, problem);
  if (recovery) throw new CorruptDatabase(path, recovery);
  let conn: Connection;
  try {
    conn = Connection.open(path, {
      mode: "ro",
      immutable: options.immutable,
      nolock: options.nolock,
    });
  } catch (error) {
    throw new CorruptDatabase(path, messageOf(error));
  }
  try {
    // Parsing the whole schema is what every later query needs first.
    conn.query("select count(*) from sqlite_master");
    const maxBytes = options.quickCheckMaxBytes ?? 0;
    if (maxBytes <= 0 || size > maxBytes) return { size, quickCheck: false };
    conn.setDeadline(options.quickCheckTimeLimitMs ?? 60_000);
    let rows: string[];
    try {
      rows = conn.query("pragma quick_check(5)").rows.map((row) => String(row[0]));
    } catch (error) {
      // Out of time is not a verdict on the file: it keeps the cheap checks only.
      if (isInterrupted(error)) return { size, quickCheck: false };
      rows = [messageOf(error)];
    }
    if (rows.length !== 1 || rows[0] !== "ok") {
      throw new CorruptDatabase(path, `PRAGMA quick_check found: ${rows.join("; ")}`);
    }
    return { size, quickCheck: true };
  } catch (error) {
    if (error instanceof CorruptDatabase) throw error;
    throw new CorruptDatabase(path, messageOf(error));
  } finally {
    conn.close();
  }
}

/** Opens `path` read-write once (rolling back a hot journal); the error message, if any. */
function recover(path: string): string | null {
  let conn: Connection | null = null;
  try {
    conn = Connection.open(path, { mode: "rw" });
    conn.exec("pragma busy_timeout = 5000");
    conn.query("select count(*) from sqlite_master");
    return null;
  } catch (error) {
    return messageOf(error);
  } finally {
    conn?.close();
  }
}

/** A database that does not exist yet is created empty by its first write; nothing to check. */
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
