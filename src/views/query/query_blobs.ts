/**
 * BLOB cells in query CSV (`/<db>/-/query.csv`): a `.blob` download URL when the row can be
 * addressed, base64 otherwise. A query row is addressable for a column when exactly one table
 * the SQL names has a column of that name and the result carries every key of that table (its
 * primary keys, or `rowid`) under the same names — and, since an alias could dress any value in
 * that name, the stored cell at that key holds exactly the bytes the query returned. The check
 * costs one lookup per page and table, only for pages that hold BLOBs.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { SqlValue } from "../../db/values.ts";
import { mentionsIdentifier } from "../../auth/sql_access.ts";
import { rowPathOf } from "../../util/tilde.ts";

/** Path of a BLOB cell's download, or null to fall back to base64. */
export type BlobUrl = (row: SqlValue[], column: string) => string | null;

/** Where a result column's values come from. */
interface BlobSource {
  table: string;
  keys: string[];
  /** Indexes of the keys among the result columns. */
  keyIndexes: number[];
}

/** Rows looked up per statement, keeping the bound parameters well below SQLite's limit. */
const LOOKUP_CHUNK = 100;

/** For each result column, the one table it can be traced to (see the module comment). */
async function blobSources(db: Database, sql: string, columns: string[]) {
  const sources = new Map<string, BlobSource>();
  const candidates: (BlobSource & { columns: string[] })[] = [];
  for (const table of await db.table_names()) {
    if (!mentionsIdentifier(sql, table)) continue;
    const pks = await db.primary_keys(table);
    const keys = pks.length ? pks : ["rowid"];
    const keyIndexes = keys.map((key) => columns.indexOf(key));
    if (keyIndexes.some((i) => i < 0)) continue;
    candidates.push({ table, keys, keyIndexes, columns: await db.table_columns(table) });
  }
  for (const column of columns) {
    const matching = candidates.filter((c) => c.columns.includes(column));
    if (matching.length === 1) sources.set(column, matching[0]);
  }
  return sources;
}

function sameBytes(a: SqlValue | undefined, b: Uint8Array): boolean {
  if (!(a instanceof Uint8Array) || a.length !== b.length) return false;
  return a.every((byte, i) => byte === b[i]);
}

const keyOf = (values: unknown[]) => JSON.stringify(values.map(String));

/** Stored cells of `wanted` columns for the rows of `source` whose keys appear in `rows`. */
async function storedCells(
  db: Database,
  source: BlobSource,
  wanted: string[],
  rows: SqlValue[][],
): Promise<Map<string, Map<string, SqlValue>>> {
  const found = new Map<string, Map<string, SqlValue>>();
  const keyRows = [...new Map(rows.map((row) => {
    const values = source.keyIndexes.map((i) => row[i]);
    return [keyOf(values), values] as const;
  })).values()];
  const name = db.dialect.escapeIdentifier;
  const select = [...source.keys, ...wanted].map(name).join(", ");
  const match = `(${source.keys.map((k) => `${name(k)} = ?`).join(" and ")})`;
  for (let start = 0; start < keyRows.length; start += LOOKUP_CHUNK) {
    const chunk = keyRows.slice(start, start + LOOKUP_CHUNK);
    const results = await db.execute(
      `select ${select} from ${db.dialect.tableName(source.table)} where ${
        chunk.map(() => match).join(" or ")
      }`,
      chunk.flat(),
      { truncate: false },
    );
    for (const row of results.rows) {
      const cells = new Map(wanted.map((c, i) => [c, row[source.keys.length + i] as SqlValue]));
      found.set(keyOf([...row].slice(0, source.keys.length)), cells);
    }
  }
  return found;
}

/**
 * The `blobUrls` provider of a query page: given a page of rows, resolves which BLOB cells can
 * be addressed and returns their download paths.
 */
export function queryBlobUrls(
  svc: ViewHost,
  db: Database,
  sql: string,
  columns: string[],
): (rows: SqlValue[][]) => Promise<BlobUrl> {
  let sources: Promise<Map<string, BlobSource>> | null = null;
  return async (rows) => {
    const blobColumns = columns.filter((_, i) => rows.some((row) => row[i] instanceof Uint8Array));
    if (blobColumns.length === 0) return () => null;
    const traced = await (sources ??= blobSources(db, sql, columns));
    const stored = new Map<BlobSource, Map<string, Map<string, SqlValue>>>();
    for (const source of new Set(blobColumns.map((c) => traced.get(c)).filter(Boolean))) {
      const wanted = blobColumns.filter((c) => traced.get(c) === source);
      stored.set(source!, await storedCells(db, source!, wanted, rows));
    }
    return (row, column) => {
      const source = traced.get(column);
      const value = row[columns.indexOf(column)];
      if (!source || !(value instanceof Uint8Array)) return null;
      const keys = source.keyIndexes.map((i) => row[i]);
      const cell = stored.get(source)?.get(keyOf(keys))?.get(column);
      if (!sameBytes(cell, value)) return null;
      const pk = rowPathOf(keys);
      const base = String(svc.urls.table(db.name, source.table));
      return `${base}/${pk}.blob?_blob_column=${encodeURIComponent(column)}`;
    };
  };
}
