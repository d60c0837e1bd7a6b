/**
 * `QueryCache`: results of Vitrine's own deterministic queries on database files (table pages,
 * counts, facets, suggestions, labels), kept in a least-recently-used map bounded in bytes (the
 * `query_cache_mb` setting) and keyed by what the file holds, the SQL and its parameters. What
 * the file holds is an immutable file's hash, or a mutable file's `PRAGMA data_version`, which
 * any commit changes (`data_version.ts`): an answer is never served after a later write, and
 * older ones age out of the map. Memory databases never reach this cache (`Database.execute`).
 *
 * Identical queries asked at the same time run once (single flight): later callers wait for the
 * first one's answer. Failures (a time limit, an error) are never kept, nor shared: a caller whose
 * shared run failed runs the query again on its own.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import type { EncodedPage } from "./read_query.ts";

/** A kept answer; every reader gets its own copy of the rows. */
export interface CachedRows {
  columns: string[];
  rows: SqlValue[][];
  truncated: boolean;
  /** Columns whose numbers were all stored as REAL. */
  real_columns?: number[];
  /** A JSON page's rows already written as JSON (`execute(…, { json_rows })`), kept with them. */
  page?: EncodedPage | null;
}

interface Entry {
  value: CachedRows;
  bytes: number;
}

/**
 * Heap size of an answer, as V8 lays it out on 64-bit: a row is an array (32 bytes) with its
 * element store (16 + 8 per cell) and a slot in the rows array (8); a number that is not a small
 * integer is a 16-byte heap number; a string 16 bytes plus two per character (most text takes
 * one, so rows parsed from JSON are counted about a third high; rows of reals and built strings
 * within 15%, measured against the heap).
 */
function sizeOf(value: CachedRows): number {
  let bytes = 64 + (value.page?.bytes.byteLength ?? 0);
  for (const column of value.columns) bytes += 40 + column.length * 2;
  for (const row of value.rows) {
    bytes += 56 + row.length * 8;
    for (const cell of row) {
      if (typeof cell === "string") bytes += 16 + cell.length * 2;
      else if (typeof cell === "number") {
        if (!Number.isInteger(cell) || cell > 0x3fffffff || cell < -0x40000000) bytes += 16;
      } else if (cell instanceof Uint8Array) bytes += 64 + cell.byteLength;
      else if (typeof cell === "bigint") bytes += 24;
    }
  }
  return bytes;
}

/** A copy of the rows a caller may change freely. */
function copy(value: CachedRows): CachedRows {
  return {
    columns: value.columns,
    rows: value.rows.map((row) => row.slice()),
    truncated: value.truncated,
    page: value.page,
  };
}

/** Bounded, single-flight cache of query answers. */
export class QueryCache {
  /** Budget in bytes. */
  readonly maxBytes: number;
  #entries = new Map<string, Entry>();
  #pending = new Map<string, Promise<CachedRows>>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /** `maxBytes` 0 keeps nothing (every call runs its query). */
  constructor(maxBytes: number) {
    this.maxBytes = Math.max(0, maxBytes);
  }

  /** The key of one query on one database file. */
  static key(hash: string, sql: string, params: unknown, variant = ""): string {
    return `${hash}\u0000${variant}\u0000${sql}\u0000${paramsKey(params)}`;
  }

  /**
   * The answer for `key`: kept, being computed by an identical caller, or computed now by `run`
   * (and kept when it fits).
   */
  async get(key: string, run: () => Promise<CachedRows>): Promise<CachedRows> {
    if (this.maxBytes === 0) return await run();
    return copy(await this.getShared(key, run));
  }

  /**
   * As {@link get}, but the kept answer itself, not a copy: for callers that copy rows only when
   * they read them (a JSON page sends the kept bytes and never reads its rows). Never change it.
   */
  async getShared(key: string, run: () => Promise<CachedRows>): Promise<CachedRows> {
    if (this.maxBytes === 0) return await run();
    const entry = this.#entries.get(key);
    if (entry) {
      // Moved to the end: the map's order is least recently used first.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#hits++;
      return entry.value;
    }
    const pending = this.#pending.get(key);
    if (pending) {
      this.#hits++;
      try {
        return await pending;
      } catch {
        // The first caller's failure is its own (its time limit, counted from its arrival; its
        // cancellation): a caller that joined it runs the query itself, and fails only if that
        // fails too (a deadline already past fails at once, unrun).
        return await this.getShared(key, run);
      }
    }
    this.#misses++;
    const running = run();
    this.#pending.set(key, running);
    try {
      const value = await running;
      this.#store(key, value);
      return value;
    } finally {
      this.#pending.delete(key);
    }
  }

  /** Entries, bytes used and how often a call was answered without running its query. */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return {
      entries: this.#entries.size,
      bytes: this.#bytes,
      hits: this.#hits,
      misses: this.#misses,
    };
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #store(key: string, value: CachedRows): void {
    const bytes = sizeOf(value) + key.length * 2;
    // One answer may not take more than a quarter of the budget.
    if (bytes > this.maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }
}

/** Parameters as text that tells apart every value SQLite could be given (types included). */
function paramsKey(params: unknown): string {
  if (params === null || params === undefined) return "";
  return JSON.stringify(params, (_key, value) => {
    if (typeof value === "bigint") return { $bigint: value.toString() };
    if (value instanceof Uint8Array) return { $blob: value.toBase64() };
    if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) {
      return { $number: Object.is(value, -0) ? "-0" : String(value) };
    }
    if (value === undefined) return { $undefined: true };
    return value;
  });
}
