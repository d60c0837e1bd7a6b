/**
 * Row counts for listing pages (index, database) and unfiltered table pages. Counts are cheap to
 * promise and expensive to deliver on big files, so each table gets a small time budget; the index
 * gives up on counts for a database as soon as one times out (API-DETAILS §2.6). Immutable files
 * reuse the counts of `--inspect-file` when it has them, and remember the counts they made.
 *
 * @module
 */
import type { ViewHost } from "./host.ts";
import type { Database } from "../db/database.ts";
import { QueryInterrupted } from "../db/errors.ts";
import { escapeSqlIdentifier } from "../util/sql.ts";
import type { CountResult } from "../table/count.ts";

/** Files above this size only get counts when immutable (their counts can be cached). */
const LARGE_FILE_BYTES = 100 * 1024 * 1024;

/** Table → row count, or null for tables whose count was too slow. */
export type TableCounts = Record<string, number | null>;

/**
 * Counts rows of `tables` with `limitMs` each. With `allOrNothing`, a single timeout returns
 * null for every table (the index page's rule).
 */
export async function tableCounts(
  svc: ViewHost,
  db: Database,
  tables: string[],
  { limitMs, allOrNothing = false }: { limitMs: number; allOrNothing?: boolean },
): Promise<TableCounts> {
  const counts: TableCounts = {};
  const inspected = inspectedCounts(svc, db);
  if (db.is_mutable && db.size > LARGE_FILE_BYTES) {
    for (const table of tables) counts[table] = null;
    return counts;
  }
  for (const table of tables) {
    const known = knownCount(db, table, inspected);
    if (known !== undefined) {
      counts[table] = known;
      continue;
    }
    // A table that cannot be read (missing module) has no count; it takes no page down.
    if (await db.table_unavailable(table)) {
      counts[table] = null;
      continue;
    }
    try {
      const sql = `select count(*) from ${escapeSqlIdentifier(table)}`;
      const results = await db.execute(sql, [], { custom_time_limit: limitMs });
      counts[table] = rememberCount(db, table, Number(results.single_value()));
    } catch (error) {
      if (!(error instanceof QueryInterrupted)) throw error;
      if (allOrNothing) return Object.fromEntries(tables.map((t) => [t, null]));
      counts[table] = null;
    }
  }
  return counts;
}

/**
 * The unfiltered row count of one table or view for its page: remembered or inspected when it
 * can be, else `count()` (which may time out or give only a lower bound, then nothing is kept).
 */
export async function tableRowCount(
  svc: ViewHost,
  db: Database,
  table: string,
  count: () => Promise<CountResult>,
): Promise<CountResult> {
  const known = knownCount(db, table, inspectedCounts(svc, db));
  if (known !== undefined) return { count: known, truncated: false };
  const result = await count();
  if (result.count !== null && !result.truncated) rememberCount(db, table, result.count);
  return result;
}

/**
 * The count of `table` in an immutable file, from an earlier count or `--inspect-file`, capped at
 * `cap`; null when not known. Never queries.
 */
export function rememberedCount(
  svc: ViewHost,
  db: Database,
  table: string,
  cap = Infinity,
): number | null {
  const known = knownCount(db, table, inspectedCounts(svc, db));
  return known === undefined ? null : Math.min(known, cap);
}

/**
 * Exact counts of tables in immutable files, by database. Such files cannot change, so a count
 * (4 ms for 500k rows, on every page view) is worth keeping for the life of the Database.
 */
const fixedCounts = new WeakMap<Database, Map<string, number>>();

function countsNeverChange(db: Database): boolean {
  return !db.is_mutable && !db.is_memory;
}

function knownCount(
  db: Database,
  table: string,
  inspected: Record<string, number> | null,
): number | undefined {
  return inspected?.[table] ?? fixedCounts.get(db)?.get(table);
}

function rememberCount(db: Database, table: string, count: number): number {
  if (countsNeverChange(db)) {
    let counts = fixedCounts.get(db);
    if (!counts) fixedCounts.set(db, counts = new Map());
    counts.set(table, count);
  }
  return count;
}

function inspectedCounts(svc: ViewHost, db: Database): Record<string, number> | null {
  if (!countsNeverChange(db)) return null;
  const data = svc.options.inspect_data?.[db.name] as
    | { tables?: Record<string, { count?: number }> }
    | undefined;
  if (!data?.tables) return null;
  const out: Record<string, number> = {};
  for (const [table, info] of Object.entries(data.tables)) {
    if (typeof info.count === "number") out[table] = info.count;
  }
  return out;
}
