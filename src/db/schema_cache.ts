/**
 * Memoised introspection. Every introspection call is a query (a worker round trip of 0.1–0.5 ms),
 * and a table page asks a dozen of them; the answers only change with the schema. Immutable files
 * keep their answers for good; other databases drop them after a write through this Database, or
 * when `PRAGMA schema_version` moved (checked at most once a second, which bounds how long another
 * process's schema change can go unseen).
 *
 * Keys hold names a visitor chose (`/db/any-name` asks `table_exists("any-name")`), so the cache
 * is bounded: at most {@link SCHEMA_CACHE_ENTRIES} answers and {@link SCHEMA_CACHE_KEY_CHARS}
 * characters of keys, the least recently used forgotten first. A database's real schema fits
 * many times over; a stream of made-up names only evicts each other.
 *
 * @module
 */

import type { SqlRunner } from "./introspect.ts";

/** How often a mutable database re-reads `PRAGMA schema_version`, in milliseconds. */
export const SCHEMA_RECHECK_MS = 1000;

/** Most answers one database keeps. */
export const SCHEMA_CACHE_ENTRIES = 4096;
/** Most characters of keys one database keeps (names can be as long as a URL). */
export const SCHEMA_CACHE_KEY_CHARS = 1 << 20;

/** Cached introspection answers for one database. */
export class SchemaCache {
  /** Least recently used first. */
  #entries = new Map<string, Promise<unknown>>();
  #keyChars = 0;
  #version: unknown = undefined;
  #checkedAt = -Infinity;
  #checking: Promise<void> | null = null;

  constructor(private readonly run: SqlRunner, private readonly immutable: boolean) {}

  /** The cached answer for `key`, computing it once; failures are not cached. */
  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    // A page asks a dozen of these: while nothing needs re-checking, the kept promise itself is
    // the answer, with no await (and no promise of its own) in between.
    if (this.#dueForRecheck()) return this.#revalidate().then(() => this.#lookup(key, compute));
    return this.#lookup(key, compute);
  }

  #lookup<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let entry = this.#entries.get(key) as Promise<T> | undefined;
    if (entry) {
      // Moved to the end: most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry;
    }
    try {
      entry = compute();
    } catch (error) {
      return Promise.reject(error);
    }
    this.#add(key, entry);
    const added = entry;
    entry.catch(() => {
      if (this.#entries.get(key) === added) this.#remove(key);
    });
    return entry;
  }

  /** Answers kept and the characters of their keys. */
  get size(): { entries: number; keyChars: number } {
    return { entries: this.#entries.size, keyChars: this.#keyChars };
  }

  /** Forget every answer (after a write that may have changed the schema). */
  invalidate(): void {
    this.#clear();
    this.#checkedAt = -Infinity;
  }

  #add(key: string, entry: Promise<unknown>): void {
    this.#entries.set(key, entry);
    this.#keyChars += key.length;
    for (const oldest of this.#entries.keys()) {
      if (
        this.#entries.size <= SCHEMA_CACHE_ENTRIES && this.#keyChars <= SCHEMA_CACHE_KEY_CHARS
      ) break;
      if (oldest === key) break;
      this.#remove(oldest);
    }
  }

  #remove(key: string): void {
    if (this.#entries.delete(key)) this.#keyChars -= key.length;
  }

  #clear(): void {
    this.#entries.clear();
    this.#keyChars = 0;
  }

  #dueForRecheck(): boolean {
    return !this.immutable && performance.now() - this.#checkedAt >= SCHEMA_RECHECK_MS;
  }

  #revalidate(): Promise<void> {
    this.#checking ??= this.run("pragma schema_version").then((rows) => {
      const version = rows[0]?.[0];
      if (version !== this.#version) this.#clear();
      this.#version = version;
      this.#checkedAt = performance.now();
    }).finally(() => (this.#checking = null));
    return this.#checking;
  }
}
