/**
 * Where the history of writes is kept and how it is read: a `_vitrine_history` table, in the
 * internal database (the default: every database's changes, told apart by `database_name`) or in
 * the written database file itself (`history: database` in the database's configuration, or
 * whenever the file already has the table), so the history travels with the file. One row per
 * changed row; one request's changes share its `request_id`.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { DatabaseEngine as Database } from "../engine.ts";
import type { SqlValue } from "../../sqlite/values.ts";
import { type ChangeRecord, HISTORY_TABLE } from "./capture.ts";
import { plainRow } from "./values.ts";

/**
 * The history table, the same in the internal database and in a database file. Only a revert's
 * records have a `reverts`, so its index leaves the others out: one index entry fewer to write
 * per record (some 0.3 µs of 4), and `reverts = ?` still finds them through it. A table made
 * before keeps its full index, which answers the same.
 */
export const HISTORY_SCHEMA = `
CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
  id INTEGER PRIMARY KEY,
  database_name TEXT NOT NULL,
  table_name TEXT NOT NULL,
  pks TEXT NOT NULL,
  operation TEXT NOT NULL,
  before TEXT,
  after TEXT,
  actor_id TEXT,
  actor TEXT,
  time TEXT NOT NULL,
  request_id TEXT NOT NULL,
  request TEXT,
  reverts INTEGER
);
CREATE INDEX IF NOT EXISTS ${HISTORY_TABLE}_row ON ${HISTORY_TABLE} (table_name, pks);
CREATE INDEX IF NOT EXISTS ${HISTORY_TABLE}_request ON ${HISTORY_TABLE} (request_id);
CREATE INDEX IF NOT EXISTS ${HISTORY_TABLE}_reverts ON ${HISTORY_TABLE} (reverts)
  WHERE reverts IS NOT NULL;
`;

/**
 * Where a database's writes are recorded: `internal` (the internal database), `database` (its own
 * `_vitrine_history` table) or `off` (not recorded).
 */
export type HistoryMode = "internal" | "database" | "off";

/** The modes a database's `history` configuration may name. */
export const HISTORY_MODES: readonly HistoryMode[] = ["internal", "database", "off"];

/** Who made a change, when, and in which request. */
export interface ChangeContext {
  database: string;
  actor: Record<string, unknown> | null;
  /** ISO 8601 UTC time. */
  time: string;
  request_id: string;
  /** The request's method and path, e.g. `POST /shop/items/-/upsert`. */
  request: string | null;
  /** For a revert: the change each reverted row's change undid, by `table` + `pks`. */
  reverts?: ReadonlyMap<string, number>;
}

/** The `reverts` key of a record. */
export function rowKey(table: string, pks: string): string {
  return `${table}\u0000${pks}`;
}

/**
 * Records written by one statement: 50 at a time, then ten at a time, then the rest together.
 * Fifty cost some 0.5 µs a record less than ten (writes of 100 records, 2026-11-29); each size is
 * a statement of its own that `query()` keeps (32 per connection), so the sizes are at most 11.
 */
const CHUNKS = [50, 10];

/** How many records the next statement writes, of `left` still to write. */
function chunkSize(left: number): number {
  return CHUNKS.find((size) => size <= left) ?? left;
}

/** The values every record of one write shares, bound once per statement as `?1` … `?6`. */
const SHARED = 6;

/** A multi-row INSERT of `rows` records: the shared values by number, then six of each record. */
function insertSql(rows: number): string {
  const values: string[] = [];
  for (let r = 0; r < rows; r++) {
    const at = SHARED + 1 + 6 * r;
    const own = (i: number) => `?${at + i}`;
    values.push(
      `(?1, ${own(0)}, ${own(1)}, ${own(2)}, ${own(3)}, ${own(4)}, ?2, ?3, ?4, ?5, ?6, ${own(5)})`,
    );
  }
  return `INSERT INTO ${HISTORY_TABLE} (database_name, table_name, pks, operation, before, after,
    actor_id, actor, time, request_id, request, reverts) VALUES ${values.join(", ")}`;
}

const insertSqls = new Map<number, string>();

/**
 * Records `records` on `conn` (inside the caller's transaction); creates the table if needed.
 * A chunk of records is one multi-row INSERT whose shared values are bound once: binding a
 * record's own values costs less than a statement per record, or a JSON array of them that
 * SQLite parses again.
 */
export function writeChanges(
  conn: Connection,
  records: readonly ChangeRecord[],
  context: ChangeContext,
): void {
  if (!records.length) return;
  // The schema once per connection and file, not each write: compiling it costs more than rows.
  const exists = conn.query("select 1 from sqlite_master where type = 'table' and name = ?", [
    HISTORY_TABLE,
  ]).rows.length > 0;
  if (!exists) conn.exec(HISTORY_SCHEMA);
  const actorId = context.actor?.id ?? null;
  const params: SqlValue[] = [
    context.database,
    actorId === null ? null : String(actorId),
    context.actor ? JSON.stringify(context.actor) : null,
    context.time,
    context.request_id,
    context.request,
  ];
  for (let i = 0, end = 0; i < records.length; i = end) {
    end = i + chunkSize(records.length - i);
    params.length = SHARED;
    for (let r = i; r < end; r++) {
      const record = records[r];
      params.push(
        record.table,
        record.pks,
        record.operation,
        record.before,
        record.after,
        context.reverts?.get(rowKey(record.table, record.pks)) ?? null,
      );
    }
    // query() keeps the compiled statement for the next write.
    let sql = insertSqls.get(end - i);
    if (sql === undefined) insertSqls.set(end - i, sql = insertSql(end - i));
    conn.query(sql, params);
  }
}

/**
 * Drops the oldest changes until the history table's database holds at most `budget` bytes of
 * pages in use (or the history is empty): for an internal database kept in memory, whose growth
 * would otherwise reach SQLite's heap limit, shared by the whole process. A quarter of the changes
 * goes at a time; the pages freed are reused by the next changes.
 */
export function trimChanges(conn: Connection, budget: number): number {
  const used = () => {
    const pages = Number(conn.query("pragma page_count").rows[0][0]);
    const free = Number(conn.query("pragma freelist_count").rows[0][0]);
    const size = Number(conn.query("pragma page_size").rows[0][0]);
    return (pages - free) * size;
  };
  let dropped = 0;
  while (used() > budget) {
    const result = conn.run(
      `DELETE FROM ${HISTORY_TABLE} WHERE id <=
        (SELECT min(id) + (max(id) - min(id)) / 4 FROM ${HISTORY_TABLE})`,
    );
    if (result.changes === 0) break;
    dropped += result.changes;
  }
  return dropped;
}

/** One recorded change, as pages and the JSON API show it. */
export interface HistoryEntry {
  id: number;
  database: string;
  table: string;
  /** Primary key values (the rowid for tables without one). */
  pks: unknown[];
  operation: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** `before` as recorded: JSON text that keeps a REAL `12.0` and large integers exact. */
  before_json: string | null;
  /** `after` as recorded. */
  after_json: string | null;
  actor_id: string | null;
  actor: Record<string, unknown> | null;
  time: string;
  request_id: string;
  request: string | null;
  /** The change this one reverted, if it was a revert. */
  reverts: number | null;
  /** The later change that reverted this one, if any. */
  reverted_by: number | null;
}

/** Which changes to read, newest first. */
export interface HistoryFilter {
  /** The database's name: needed where several databases share the table (internal). */
  database: string | null;
  table?: string | null;
  /** JSON array texts the key values may have been recorded as (any of them matches). */
  pks?: string[] | null;
  request_id?: string | null;
  /** Only changes with a smaller id (the next page). */
  before_id?: number | null;
  limit?: number;
}

/** The changes `filter` selects, newest first, read from `source`'s history table. */
export async function readChanges(
  source: Database,
  filter: HistoryFilter,
): Promise<HistoryEntry[]> {
  if (!(await source.table_exists(HISTORY_TABLE))) return [];
  const where: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (filter.database !== null) add("h.database_name = ?", filter.database);
  if (filter.table) add("h.table_name = ?", filter.table);
  if (filter.pks) add(`h.pks in (${filter.pks.map(() => "?").join(", ")})`, ...filter.pks);
  if (filter.request_id) add("h.request_id = ?", filter.request_id);
  if (filter.before_id) add("h.id < ?", filter.before_id);
  const limit = filter.limit ?? 100;
  const results = await source.execute(
    `select h.*, (select min(r.id) from ${HISTORY_TABLE} r where r.reverts = h.id) as reverted_by
    from ${HISTORY_TABLE} h ${where.length ? `where ${where.join(" and ")}` : ""}
    order by h.id desc limit ${limit}`,
    params,
    { truncate: false },
  );
  return results.dicts().map((row) => ({
    id: Number(row.id),
    database: String(row.database_name),
    table: String(row.table_name),
    pks: JSON.parse(String(row.pks)),
    operation: String(row.operation),
    before: plainRow(row.before as string | null),
    after: plainRow(row.after as string | null),
    before_json: row.before as string | null,
    after_json: row.after as string | null,
    actor_id: row.actor_id === null ? null : String(row.actor_id),
    actor: row.actor === null ? null : JSON.parse(String(row.actor)),
    time: String(row.time),
    request_id: String(row.request_id),
    request: row.request === null ? null : String(row.request),
    reverts: row.reverts === null ? null : Number(row.reverts),
    reverted_by: row.reverted_by === null ? null : Number(row.reverted_by),
  }));
}

/** Which changes a revert takes: some by number, or all of one request's. */
export type RevertSelection = { ids: number[] } | { request_id: string };

/**
 * The raw rows of the changes `which` selects (JSON texts kept exact), for a revert; oldest
 * first, at most `limit`. `database` (the internal history's) keeps them to that database's. One
 * light query: a revert of a whole upload part reads tens of thousands of changes, within the
 * request's time limit.
 */
export async function rawChanges(
  source: Database,
  database: string | null,
  which: RevertSelection,
  limit: number,
): Promise<RawEntry[]> {
  if (!(await source.table_exists(HISTORY_TABLE))) return [];
  // One JSON array, not a variable per id: a request's changes may number more than SQLite binds.
  const where = ["ids" in which ? "id in (select value from json_each(?))" : "request_id = ?"];
  const params: SqlValue[] = ["ids" in which ? JSON.stringify(which.ids) : which.request_id];
  if (database !== null) {
    where.push("database_name = ?");
    params.push(database);
  }
  const results = await source.execute(
    `select id, table_name, pks, operation, before, after from ${HISTORY_TABLE}
    where ${where.join(" and ")} order by id limit ${limit}`,
    params,
    { truncate: false },
  );
  return results.dicts().map((row) => ({
    id: Number(row.id),
    table: String(row.table_name),
    pks: String(row.pks),
    operation: String(row.operation),
    before: row.before as string | null,
    after: row.after as string | null,
  }));
}

/** A change as a revert needs it: the exact JSON texts. */
export interface RawEntry {
  /** The change's number. */
  id: number;
  /** The table. */
  table: string;
  /** JSON array of the row's primary key values. */
  pks: string;
  /** `insert`, `update` or `delete`. */
  operation: string;
  /** JSON object of the row before; null for an insert. */
  before: string | null;
  /** JSON object of the row after; null for a delete. */
  after: string | null;
}
