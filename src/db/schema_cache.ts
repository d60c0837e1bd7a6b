/**
 * Memoised introspection. Every introspection call is a query (a worker round trip of 0.1–0.5 ms),
 * and a table page asks a dozen of them; the answers only change with the schema. Immutable files
 * keep their answers for good; other databases drop them after a write through this Database, or
 * when `PRAGMA schema_version` moved (checked at most once a second, which bounds how long another
 * process's schema change can go unseen).
 *
 * @module
 */

import type { SqlRunner } from "./introspect.ts";

/** How often a mutable database re-reads `PRAGMA schema_version`, in milliseconds. */
export const SCHEMA_RECHECK_MS = 1000;

/** Cached introspection answers for one database. */
export class SchemaCache {
  #entries = new Map<string, Promise<unknown>>();
  #version: unknown = undefined;
  #checkedAt = -Infinity;
  #checking: Promise<void> | null = null;

  constructor(private readonly run: SqlRunner, private readonly immutable: boolean) {}

  /** The cached answer for `key`, computing it once; failures are not cached. */
  async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    await this.#revalidate();
    let entry = this.#entries.get(key) as Promise<T> | undefined;
    if (!entry) {
      entry = compute();
      this.#entries.set(key, entry);
      entry.catch(() => this.#entries.delete(key));
    }
    return await entry;
  }

  /** Forget every answer (after a write that may have changed the schema). */
  invalidate(): void {
    this.#entries.clear();
    this.#checkedAt = -Infinity;
  }

  #revalidate(): Promise<void> {
    if (this.immutable || performance.now() - this.#checkedAt < SCHEMA_RECHECK_MS) {
      return Promise.resolve();
    }
    this.#checking ??= this.run("pragma schema_version").then((rows) => {
      const version = rows[0]?.[0];
      if (version !== this.#version) this.#entries.clear();
      this.#version = version;
      this.#checkedAt = performance.now();
    }).finally(() => (this.#checking = null));
    return this.#checking;
  }
}
