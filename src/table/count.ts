/**
 * Row counts under the time limit (`count` / `count_truncated`, API-DETAILS §2.1). When the full
 * count runs out of time, a count of at most N rows (`select count(*) from (select 1 … limit N)`)
 * usually still fits, because it stops after N matches: the page then shows "≥N rows" instead of
 * no count at all. Smaller caps are tried in turn; if every one times out the count is unknown.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { isQueryInterrupted } from "./facet_base.ts";

/** Caps tried after the full count timed out, largest first. */
const COUNT_CAPS: readonly number[] = [10_000, 1_000];

/** A count, and whether it is only a lower bound (or unknown, when `count` is null). */
export interface CountResult {
  count: number | null;
  truncated: boolean;
}

/** Runs a `select count(*) …` and returns its value; rejects with `QueryInterrupted` on overrun. */
export type CountRunner = (sql: string, params: Record<string, unknown>) => Promise<number>;

/**
 * Counts the rows of `from` (`from <table> where …`, as in `TableQuery.count_from`), falling back
 * to capped counts when the full one times out. Other errors propagate. Without `full`, only the
 * capped counts run (the caller knows the full one would time out).
 */
export async function countWithFallback(
  run: CountRunner,
  from: string,
  params: Record<string, unknown>,
  caps: readonly number[] = COUNT_CAPS,
  dialect: SqlDialect = sqliteDialect,
  full = true,
): Promise<CountResult> {
  try {
    if (full) return { count: await run(`select count(*) ${from}`, params), truncated: false };
  } catch (error) {
    if (!isQueryInterrupted(error)) throw error;
  }
  for (const cap of caps) {
    try {
      const capped = dialect.subquery(`select 1 ${from} limit ${cap}`);
      const count = await run(`select count(*) from ${capped}`, params);
      // Fewer rows than the cap: the capped count is the whole count after all.
      return { count, truncated: count >= cap };
    } catch (error) {
      if (!isQueryInterrupted(error)) throw error;
    }
  }
  return { count: null, truncated: true };
}
