/**
 * Facts about a database file: content hash, size, modification time.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { statSync } from "node:fs";

/** SHA-256 of the file's bytes as 64 hex characters, read in chunks (files may be large). */
export function sha256File(path: string): string {
  const hash = createHash("sha256");
  using file = Deno.openSync(path, { read: true });
  const buffer = new Uint8Array(1 << 20);
  while (true) {
    const read = file.readSync(buffer);
    if (read === null || read === 0) break;
    hash.update(buffer.subarray(0, read));
  }
  return hash.digest("hex");
}

/** File size in bytes. */
export function fileSize(path: string): number {
  return Deno.statSync(path).size;
}

/** Modification time in nanoseconds since the epoch, exact (a bigint). */
export function fileMtimeNs(path: string): bigint {
  return statSync(path, { bigint: true }).mtimeNs;
}

/** The file name without its last extension, as a database name ("data/shop.db" → "shop"). */
export function fileStem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}
