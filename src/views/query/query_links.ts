/**
 * Links and column facts on query results (issue: links on query results). A result column that
 * is a plain copy of a table column ({@link columnOrigins}) links as it would on that table's
 * page: a primary key to its row, a foreign key to the row it points at; its header carries the
 * column's declared type and its description from metadata.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { columnOrigins } from "../../db/column_origins.ts";
import { tilde_encode } from "../../util/tilde.ts";
import type { Actor } from "../../http/actor.ts";

/** What a result column's header shows. */
export interface QueryColumnFacts {
  name: string;
  /** `table.column` it comes from, or null. */
  source: string | null;
  type: string | null;
  description: string | null;
}

/** Per-column facts and cell link builders of a query's result. */
export interface QueryLinks {
  columns: QueryColumnFacts[];
  /** Result column → value → link (only columns that link). */
  links: Map<string, (value: unknown) => string | null>;
}

/**
 * The links and header facts of `columns`, the result of `sql` on `db`. Columns with the same
 * name as another are left alone (a cell is found by its column's name).
 */
export async function queryLinks(
  svc: ViewHost,
  actor: Actor | null,
  db: Database,
  sql: string,
  columns: string[],
): Promise<QueryLinks> {
  const origins = await columnOrigins(db, sql);
  const facts: QueryColumnFacts[] = [];
  const links = new Map<string, (value: unknown) => string | null>();
  const seen = new Set<string>();
  const duplicate = new Set(columns.filter((name) => (seen.has(name) ? true : !seen.add(name))));
  for (const [i, name] of columns.entries()) {
    const origin = origins.length === columns.length ? origins[i] : null;
    // Only the database's own tables: an attached one (crossdb) has pages of its own name.
    if (!origin || origin.schema !== "main") {
      facts.push({ name, source: null, type: null, description: null });
      continue;
    }
    const { table, column } = origin;
    const details = await db.table_column_details(table).catch(() => []);
    const detail = details.find((row) => row["name"] === column);
    const configured = svc.metadata().table(db.name, table)?.columns as
      | Record<string, unknown>
      | undefined;
    const description = configured?.[column];
    facts.push({
      name,
      source: `${table}.${column}`,
      type: detail ? String(detail["type"] ?? "") || null : null,
      description: typeof description === "string" ? description : null,
    });
    if (duplicate.has(name)) continue;
    const link = await linkFor(svc, actor, db, table, column);
    if (link) links.set(name, link);
  }
  return { columns: facts, links };
}

/** Primary key → its row; foreign key → the row (or rows) it points at. */
async function linkFor(
  svc: ViewHost,
  actor: Actor | null,
  db: Database,
  table: string,
  column: string,
): Promise<((value: unknown) => string | null) | null> {
  // A link to a page the actor may not open would only lead to a 403.
  const mayView = async (name: string) =>
    (await svc.check_visibility(actor, { action: "view-table", resource: [db.name, name] }))[0];
  const text = (value: unknown) =>
    value === null || value === undefined || value instanceof Uint8Array ? null : String(value);
  const pks = await db.primary_keys(table).catch(() => []);
  if (pks.length === 1 && pks[0] === column) {
    if (!(await mayView(table))) return null;
    return (value) => {
      const key = text(value);
      return key === null ? null : String(svc.urls.row(db.name, table, tilde_encode(key)));
    };
  }
  const keys = await db.foreign_keys_for_table(table).catch(() => []);
  const fk = keys.find((key) => key.column === column);
  if (!fk || !(await mayView(fk.other_table))) return null;
  const otherPks = await db.primary_keys(fk.other_table).catch(() => []);
  return (value) => {
    const key = text(value);
    if (key === null) return null;
    if (otherPks.length === 1 && otherPks[0] === fk.other_column) {
      return String(svc.urls.row(db.name, fk.other_table, tilde_encode(key)));
    }
    const args = new URLSearchParams({ [fk.other_column]: key });
    return `${svc.urls.table(db.name, fk.other_table)}?${args}`;
  };
}
