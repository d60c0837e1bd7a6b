/**
 * Row counts for listing pages (index, database). Counts are cheap to promise and expensive to
 * deliver on big files, so each table gets a small time budget; the index gives up on counts
 * for a database as soon as one times out (API-DETAILS §2.6). Immutable files reuse the counts
 * of `--inspect-file` when it has them.
 */
import type { Service } from "../service.ts";
import type { Database } from "../db/database.ts";
import { QueryInterrupted } from "../db/errors.ts";
import { escapeSqlIdentifier } from "../util/sql.ts";

/** Files above this size only get counts when immutable (their counts can be cached). */
const LARGE_FILE_BYTES = 100 * 1024 * 1024;

/** Table → row count, or null for tables whose count was too slow. */
export type TableCounts = Record<string, number | null>;

/**
 * Counts rows of `tables` with `limitMs` each. With `allOrNothing`, a single timeout returns
 * null for every table (the index page's rule).
 */
export async function tableCounts(
  svc: Service,
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
    if (inspected?.[table] !== undefined) {
      counts[table] = inspected[table];
      continue;
    }
    try {
      const sql = `select count(*) from ${escapeSqlIdentifier(table)}`;
      const results = await db.execute(sql, [], { custom_time_limit: limitMs });
      counts[table] = Number(results.single_value());
    } catch (error) {
      if (!(error instanceof QueryInterrupted)) throw error;
      if (allOrNothing) return Object.fromEntries(tables.map((t) => [t, null]));
      counts[table] = null;
    }
  }
  return counts;
}

function inspectedCounts(svc: Service, db: Database): Record<string, number> | null {
  if (db.is_mutable) return null;
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
