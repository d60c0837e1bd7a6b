/** Telling a SQLite database file from another kind of file by its first 16 bytes. */

const SQLITE_HEADER = new TextEncoder().encode("SQLite format 3\0");

/**
 * True for an empty file (SQLite makes it a database) or one with SQLite's 16-byte header; with
 * `missingIsFine`, also for a file that does not exist yet.
 */
export function looksLikeSqlite(path: string, { missingIsFine = false } = {}): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path);
  } catch (error) {
    if (missingIsFine && error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
  try {
    const head = new Uint8Array(16);
    const read = file.readSync(head) ?? 0;
    return read === 0 || (read === 16 && head.every((byte, i) => byte === SQLITE_HEADER[i]));
  } finally {
    file.close();
  }
}
