/**
 * What each SQL text has cost so far, so the read pool can tell short queries from long ones
 * before running them (`pool.ts`). Keyed by SQL text without parameters: a table page, a row
 * lookup or a facet has the same text for every value it is asked about.
 *
 * @module
 */

/** A query that took at least this long (moving average) is a long one. */
export const LONG_QUERY_MS = 20;

/**
 * A query whose moving average stays under this, over at least {@link TINY_AFTER} runs, is tiny:
 * handing it to a worker costs more than running it (`database.ts` runs it on the main thread).
 */
export const TINY_QUERY_MS = 2;
const TINY_AFTER = 3;

/** SQL texts remembered; the least recently seen are forgotten first. */
const REMEMBERED = 2000;
/**
 * Characters of SQL text remembered in all: visitors' SQL can be 100 KB a query, and 2,000 of
 * those would hold hundreds of megabytes.
 */
export const REMEMBERED_CHARS = 4 << 20;

/** Moving averages of query durations per SQL text. */
export class QueryCosts {
  /** Least recently seen first. */
  #costs = new Map<string, { ms: number; runs: number }>();
  #chars = 0;

  /** Characters of the SQL texts remembered now. */
  get chars(): number {
    return this.#chars;
  }

  /** SQL texts remembered now. */
  get size(): number {
    return this.#costs.size;
  }

  /** Records one run of `sql` that took `ms` milliseconds. */
  record(sql: string, ms: number): void {
    const previous = this.#costs.get(sql);
    // Deleted and set again: the map's order is then least recently seen first.
    if (this.#costs.delete(sql)) this.#chars -= sql.length;
    // Recent runs weigh most; one slow run (a cold cache) is forgiven after a few fast ones.
    this.#costs.set(
      sql,
      previous === undefined
        ? { ms, runs: 1 }
        : { ms: previous.ms * 0.6 + ms * 0.4, runs: previous.runs + 1 },
    );
    this.#chars += sql.length;
    for (const oldest of this.#costs.keys()) {
      if ((this.#costs.size <= REMEMBERED && this.#chars <= REMEMBERED_CHARS) || oldest === sql) {
        break;
      }
      this.#costs.delete(oldest);
      this.#chars -= oldest.length;
    }
  }

  /** True when `sql` has been long so far; a text never seen counts as short. */
  isLong(sql: string): boolean {
    return (this.#costs.get(sql)?.ms ?? 0) >= LONG_QUERY_MS;
  }

  /** True when `sql` has always been tiny lately (see {@link TINY_QUERY_MS}). */
  isTiny(sql: string): boolean {
    const cost = this.#costs.get(sql);
    return cost !== undefined && cost.runs >= TINY_AFTER && cost.ms < TINY_QUERY_MS;
  }
}
