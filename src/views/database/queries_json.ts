/**
 * The `queries` of the database JSON in the frozen 1.0 API's shape: every canned query
 * (metadata and `canned_queries` hooks) and stored query the actor may see, each with 1.0's keys
 * (`query_json.ts`), sorted as 1.0 sorts them (by title, else name, ignoring case).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { storedQueryVisibility } from "../query/stored_access.ts";
import { storedQueryJson } from "../query/stored_queries.ts";
import { cannedQueryJson, inOrder } from "../query/query_json.ts";

/** The database JSON's `queries`, `queries_more` and `queries_count`. */
export interface QueriesJson {
  queries: Record<string, unknown>[];
  /** Always false: every query is listed (1.0 lists five; see docs/json-api.md). */
  queries_more: boolean;
  queries_count: number;
}

/**
 * `canned` (the visible canned queries, each with `private`) and the stored queries of `db` the
 * actor may see, as the database JSON lists them.
 */
export async function queriesJson(
  svc: ViewHost,
  db: Database,
  actor: Actor | null,
  canned: (CannedQueryDefinition & { private: boolean })[],
): Promise<QueriesJson> {
  const configured = svc.metadata().database(db.name)?.queries;
  const inConfig = (name: string) =>
    Boolean(configured && typeof configured === "object" && Object.hasOwn(configured, name));
  const listed = canned.map((query) => cannedQueryJson(db.name, query, inConfig(query.name)));
  for (const query of await svc.stored_queries.list(db.name)) {
    const [visible, isPrivate] = await storedQueryVisibility(svc, actor, query);
    if (visible) listed.push(inOrder(storedQueryJson(query, isPrivate)));
  }
  listed.sort((a, b) => compare(sortKey(a), sortKey(b)) || compare(a.name, b.name));
  return { queries: listed, queries_more: false, queries_count: listed.length };
}

function sortKey(query: Record<string, unknown>): string {
  const title = typeof query.title === "string" && query.title !== "" ? query.title : null;
  return String(title ?? query.name).toLowerCase();
}

function compare(a: unknown, b: unknown): number {
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
