/**
 * What each SQL text has cost so far, so the read pool can tell short queries from long ones
 * before running them (`pool_queue.ts`, `pool.ts`). Keyed by SQL text without parameters: a table page, a row
 * lookup or a facet has the same text for every value it is asked about.
 *
 * A table page's SQL ends with its page size written in (`… limit 51`), so each `_size=` would be
 * a text of its own, never seen: new texts count as short and may be runaways, so a scan behind a
 * new size went before the long lane, and a 2 ms keyset page behind a new size waited for the one
 * spare left to unproven texts while the other workers ran scans (the varied mix: its `_next=`
 * pages answered after 1.1–1.8 s, bench/mix_floor.ts). A text's cost is kept without a final
 * `limit N` (`offset M`): the sizes of one page share what they have cost (see {@link costKey}).
 *
 * A cost is the CPU time of the thread that ran the query (`util/thread_clock.ts`), not its
 * wall-clock time: under load the wall clock counts the time the thread waited for a core, a short
 * query counted as long went to the long lane, waited longer there and failed at its deadline — a
 * loop that sixteen clients asking one 4 ms query set off on two cores (issue 42). A query that
 * mostly waits for the disk (a cold file) counts as short by this measure; it still counts as
 * stuck once it has run 100 ms (wall clock, `pool.ts`), so spares start for the queries behind it.
 *
 * @module
 */

/** A query that took at least this much CPU (moving average, ms) is a long one. */
export const LONG_QUERY_MS = 20;

/**
 * A query most of whose recent runs ({@link RECENT_RUNS}; at least {@link TINY_AFTER} runs in all)
 * took less CPU than this (ms) is tiny: handing it to a worker costs more than running it
 * (`database.ts` runs it on the main thread).
 */
export const TINY_QUERY_MS = 2;
const TINY_AFTER = 3;
/**
 * Runs whose costs decide tinyness, by majority. When costs were wall-clock times, a row lookup of
 * 50 µs was now and then measured at 5–25 ms on a busy machine (its thread descheduled
 * mid-query); one such run lifted the moving average over the limit, and the lookups that followed
 * went to the workers, where they waited behind runaway queries for 100–200 ms (bench/load.ts,
 * runaway section). CPU time is not inflated that way, but a cold page cache still makes a run or
 * two dearer.
 */
const RECENT_RUNS = 5;

/** SQL texts remembered; the least recently seen are forgotten first. */
const REMEMBERED = 2000;
/**
 * Characters of SQL text remembered in all: visitors' SQL can be 100 KB a query, and 2,000 of
 * those would hold hundreds of megabytes.
 */
export const REMEMBERED_CHARS = 4 << 20;

/** The end of a statement that gives its page size: `limit N`, maybe `offset M`. */
const FINAL_LIMIT = /\slimit\s+\d+(?:\s+offset\s+\d+)?\s*;?\s*$/i;
/** How much of a text's end is searched for {@link FINAL_LIMIT} (visitors' SQL may be 100 KB). */
const END = 64;

/**
 * The text a statement's cost is kept under: `sql` with a final `limit N` (and `offset M`)
 * written `limit ?`, so that the page sizes of one page share a cost.
 */
export function costKey(sql: string): string {
  const end = sql.length > END ? sql.slice(-END) : sql;
  const match = FINAL_LIMIT.exec(end);
  if (!match) return sql;
  return `${sql.slice(0, sql.length - end.length + match.index)} limit ?`;
}

/** Moving averages of query costs (CPU ms) per SQL text (by {@link costKey}). */
export class QueryCosts {
  /** Least recently seen first. */
  #costs = new Map<string, Cost>();
  #chars = 0;
  #version = 0;

  /** Changes with every recorded run: the pool sorts its waiting queries again only then. */
  get version(): number {
    return this.#version;
  }

  /** Characters of the SQL texts remembered now. */
  get chars(): number {
    return this.#chars;
  }

  /** SQL texts remembered now. */
  get size(): number {
    return this.#costs.size;
  }

  /** Records one run of `sql` that took `ms` milliseconds of its thread's CPU. */
  record(text: string, ms: number): void {
    const sql = costKey(text);
    this.#version++;
    const previous = this.#costs.get(sql);
    // Deleted and set again: the map's order is then least recently seen first.
    if (this.#costs.delete(sql)) this.#chars -= sql.length;
    // Recent runs weigh most; one slow run (a cold cache) is forgiven after a few fast ones.
    if (previous === undefined) {
      this.#costs.set(sql, { ms, runs: 1, recent: [ms] });
    } else {
      previous.ms = previous.ms * 0.6 + ms * 0.4;
      previous.runs++;
      if (previous.recent.length === RECENT_RUNS) previous.recent.shift();
      previous.recent.push(ms);
      this.#costs.set(sql, previous);
    }
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
    return (this.#costs.get(costKey(sql))?.ms ?? 0) >= LONG_QUERY_MS;
  }

  /**
   * True when `sql` has run before and been short so far. Only such queries may take a spare
   * worker (`pool.ts`): a text never seen may be a runaway.
   */
  isKnownShort(sql: string): boolean {
    const cost = this.#costs.get(costKey(sql));
    return cost !== undefined && cost.ms < LONG_QUERY_MS;
  }

  /** True when most of `sql`'s recent runs were tiny (see {@link TINY_QUERY_MS}). */
  isTiny(sql: string): boolean {
    const cost = this.#costs.get(costKey(sql));
    if (cost === undefined || cost.runs < TINY_AFTER) return false;
    let tiny = 0;
    for (const ms of cost.recent) if (ms < TINY_QUERY_MS) tiny++;
    return tiny * 2 > cost.recent.length;
  }
}

/** What one SQL text has cost. */
interface Cost {
  /** Moving average of its runs' CPU times (ms). */
  ms: number;
  runs: number;
  /** The last {@link RECENT_RUNS} runs' CPU times, oldest first. */
  recent: number[];
}
