/**
 * Row counts for listing pages (index, database) and unfiltered table pages. Counts are cheap to
 * promise and expensive to deliver on big files, so each table gets a small time budget; the index
 * gives up on counts for a database as soon as one times out (API-DETAILS §2.6), and a listing
 * has a budget for all its counts together ({@link LISTING_BUDGET_MS}). Immutable files reuse the
 * counts of `--inspect-file` when it has them, and remember the counts they made; a count that did
 * not fit in a page's time is made after the page, in the background ({@link countLater}), for the
 * next views.
 *
 * @module
 */
import type { ViewHost } from "./host.ts";
import type { DatabaseEngine as Database } from "../db/engine.ts";
import { QueryInterrupted } from "../db/errors.ts";
import type { CountResult } from "../table/count.ts";

/**
 * Files above this size get no counts on listing pages: a mutable one never (its counts cannot
 * be kept), an immutable one once they have been made after a page ({@link countLater}).
 */
const LARGE_FILE_BYTES = 100 * 1024 * 1024;

/**
 * Milliseconds a listing page (index, database) may spend on all its counts together. Each table
 * has its own small limit too, but a 2 GB file of 100 tables, each count just under it, took 2.5 s
 * for its database page (bench/big_files.ts).
 */
export const LISTING_BUDGET_MS = 100;

/**
 * How long a background count may run ({@link countLater}): it holds a base worker, which yields
 * the CPU to the others (`db/pool.ts`), and runs once per table of an immutable file.
 */
const BACKGROUND_COUNT_MS = 30_000;

/**
 * Milliseconds a table page's unfiltered count may take before the page settles for a lower bound
 * (`table/count.ts`); an immutable file's table is then counted after the page. Counting 20 million
 * rows took 0.8 s from the kernel's cache and 3.7 s from the disk (bench/big_files.ts).
 */
export const TABLE_COUNT_MS = 50;

/** Table → row count, or null for tables whose count was too slow. */
export type TableCounts = Record<string, number | null>;

/**
 * Counts rows of `tables` with `limitMs` each and `budgetMs` for all (default
 * {@link LISTING_BUDGET_MS}); those left without a count are null, and counted after the page
 * when the file is immutable. With `allOrNothing`, a single timeout returns null for every table
 * (the index page's rule).
 */
export async function tableCounts(
  svc: ViewHost,
  db: Database,
  tables: string[],
  { limitMs, budgetMs = LISTING_BUDGET_MS, allOrNothing = false }: {
    limitMs: number;
    budgetMs?: number;
    allOrNothing?: boolean;
  },
): Promise<TableCounts> {
  const counts: TableCounts = {};
  const inspected = inspectedCounts(svc, db);
  if (db.size > LARGE_FILE_BYTES) {
    for (const table of tables) counts[table] = knownCount(db, table, inspected) ?? null;
    countLater(db, tables.filter((table) => counts[table] === null));
    return counts;
  }
  const started = performance.now();
  /** Tables left without a count, for {@link countLater}. */
  const uncounted: string[] = [];
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
    const left = budgetMs - (performance.now() - started);
    if (left < 1) {
      counts[table] = null;
      uncounted.push(table);
      continue;
    }
    try {
      const sql = countSql(db, table);
      const limit = Math.min(limitMs, Math.ceil(left));
      const results = await db.execute(sql, [], { custom_time_limit: limit });
      counts[table] = rememberCount(db, table, Number(results.single_value()));
    } catch (error) {
      if (!(error instanceof QueryInterrupted)) throw error;
      uncounted.push(table);
      if (allOrNothing) {
        countLater(db, tables.filter((t) => knownCount(db, t, inspected) === undefined));
        return Object.fromEntries(tables.map((t) => [t, null]));
      }
      counts[table] = null;
    }
  }
  countLater(db, uncounted);
  return counts;
}

function countSql(db: Database, table: string): string {
  return `select count(*) from ${db.dialect.tableName(table)}`;
}

/** Databases whose background counts are under way. */
const countingLater = new WeakSet<Database>();

/**
 * Counts `tables` of an immutable file one at a time after the page that could not, outside any
 * request, and remembers their counts for the next views (the listing pages and the table pages
 * of big files then show them). Does nothing for files that may change, whose counts are not kept,
 * or while another background count of the same database runs (the next page asks again).
 */
export function countLater(db: Database, tables: readonly string[]): void {
  if (tables.length === 0 || !countsNeverChange(db) || countingLater.has(db)) return;
  countingLater.add(db);
  const pending = [...tables];
  const next = async (): Promise<void> => {
    const table = pending.shift();
    if (table === undefined) return;
    if (fixedCounts.get(db)?.has(table)) return next();
    try {
      const options = {
        custom_time_limit: BACKGROUND_COUNT_MS,
        request_deadline: false,
        log_sql_errors: false,
      };
      const results = await db.execute(countSql(db, table), [], options);
      rememberCount(db, table, Number(results.single_value()));
    } catch {
      // Too slow even here, or the database was closed: it keeps no count.
    }
    return next();
  };
  // Not part of the page that asked: the page is answered without waiting.
  setTimeout(() => next().finally(() => countingLater.delete(db)), 0);
}

/**
 * The unfiltered row count of one table or view for its page: remembered or inspected when it
 * can be, else `count()` (which may time out or give only a lower bound: then an immutable file's
 * table is counted after the page, {@link countLater}).
 */
export async function tableRowCount(
  svc: ViewHost,
  db: Database,
  table: string,
  count: (full: boolean) => Promise<CountResult>,
): Promise<CountResult> {
  const known = knownCount(db, table, inspectedCounts(svc, db));
  if (known !== undefined) return { count: known, truncated: false };
  const slow = slowCounts.get(db);
  const result = await count(!slow?.has(table) && !await tooBigToCount(db, table));
  if (result.count !== null && !result.truncated) rememberCount(db, table, result.count);
  else {
    if (countsNeverChange(db)) {
      if (!slow) slowCounts.set(db, new Set([table]));
      else slow.add(table);
    }
    countLater(db, [table]);
  }
  return result;
}

/**
 * Rowid span from which a table of a big file ({@link LARGE_FILE_BYTES}) is not counted in full
 * on its page. Counting reads the whole table, about 25,000 rows a millisecond from the kernel's
 * cache (20,000,000 rows: 0.8 s; from the disk 3.7 s): a table this long cannot be counted in
 * {@link TABLE_COUNT_MS}, and trying cost its first page 100 ms (the count is stopped at twice its
 * time) before it settled for the capped count anyway.
 */
const HUGE_TABLE_ROWS = 1_000_000;

/**
 * True when `table` of a big SQLite file is too long to count within a page: the span of its
 * rowids (`max - min + 1`, at least its row count; two b-tree descents, a few pages) reaches
 * {@link HUGE_TABLE_ROWS}. Small files, views, tables without rowid and other engines are
 * counted as before; the page then shows the capped count, a lower bound, as the reference does
 * for every table over 10,000 rows.
 */
async function tooBigToCount(db: Database, table: string): Promise<boolean> {
  if (db.size <= LARGE_FILE_BYTES || db.dialect.name !== "sqlite") return false;
  const known = hugeTables.get(db)?.get(table);
  if (known !== undefined) return known;
  if (!await db.table_exists(table)) return false;
  // A virtual table's rowids are no b-tree to descend (`max` would read them all), and a table
  // without rowid has none.
  const definition = await db.get_table_definition(table) ?? "";
  if (/^\s*create\s+virtual\b|\bwithout\s+rowid\b/i.test(definition)) return false;
  // A column may take the name `rowid` (or its other names); then only an unused one is the rowid.
  const columns = new Set((await db.table_columns(table)).map((name) => name.toLowerCase()));
  const rowid = ["rowid", "_rowid_", "oid"].find((name) => !columns.has(name));
  if (!rowid) return false;
  const from = db.dialect.tableName(table);
  let huge = false;
  try {
    const span = (await db.execute(
      `select (select max(${rowid}) from ${from}) - (select min(${rowid}) from ${from}) + 1`,
      [],
      // Tiny by nature: answered on this thread rather than after a worker's round trip.
      { custom_time_limit: TABLE_COUNT_MS, log_sql_errors: false, inline: true },
    )).single_value();
    // Rowids far apart may give a bigint, or a float when the difference overflows.
    huge = (typeof span === "number" || typeof span === "bigint") &&
      Number(span) >= HUGE_TABLE_ROWS;
  } catch {
    // No time left: counted as before.
  }
  if (countsNeverChange(db)) {
    let tables = hugeTables.get(db);
    if (!tables) hugeTables.set(db, tables = new Map());
    tables.set(table, huge);
  }
  return huge;
}

/** {@link tooBigToCount}'s answers for immutable files, which cannot grow. */
const hugeTables = new WeakMap<Database, Map<string, boolean>>();

/**
 * Tables of immutable files whose full count did not fit in a page's time. The file cannot
 * change, so the next pages go straight to the capped counts (a 20,000,000-row table's count
 * cost every page 100 ms before it gave up) until the count made after the page is known.
 */
const slowCounts = new WeakMap<Database, Set<string>>();

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
