/**
 * The `queries` of the database JSON in the frozen 1.0 API's shape: every canned query
 * (metadata and `canned_queries` hooks) and stored query the actor may see, each with 1.0's keys
 * in 1.0's order, sorted as 1.0 sorts them (by title, else name, ignoring case). Canned queries
 * keep `write`, the key clients of the spec's era read.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { Database } from "../../db/database.ts";
import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { storedQueryVisibility } from "../query/stored_access.ts";
import { storedQueryJson } from "../query/stored_queries.ts";

/** 1.0's keys of a listed query, in its order (`private` follows them). */
const KEYS = [
  "database",
  "name",
  "sql",
  "title",
  "description",
  "description_html",
  "hide_sql",
  "fragment",
  "parameters",
  "is_write",
  "is_private",
  "is_trusted",
  "source",
  "owner_id",
  "on_success_message",
  "on_success_message_sql",
  "on_success_redirect",
  "on_error_message",
  "on_error_redirect",
] as const;

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

/** A canned query's metadata (`write`, `params`, …) in 1.0's keys, plus `write`. */
function cannedQueryJson(
  database: string,
  query: CannedQueryDefinition & { private: boolean },
  configured: boolean,
): Record<string, unknown> {
  const text = (key: string) => typeof query[key] === "string" ? query[key] : null;
  const write = Boolean(query.write);
  return inOrder({
    database,
    name: query.name,
    sql: query.sql,
    title: text("title"),
    description: text("description"),
    description_html: text("description_html"),
    hide_sql: Boolean(query.hide_sql),
    fragment: text("fragment"),
    parameters: Array.isArray(query.params) ? query.params : [],
    is_write: write,
    is_private: false,
    is_trusted: query.is_trusted === undefined ? true : Boolean(query.is_trusted),
    // Queries only a `canned_queries` hook adds are the plugin's, not the configuration's.
    source: configured ? "config" : "plugin",
    owner_id: null,
    on_success_message: text("on_success_message"),
    on_success_message_sql: text("on_success_message_sql"),
    on_success_redirect: text("on_success_redirect"),
    on_error_message: text("on_error_message"),
    on_error_redirect: text("on_error_redirect"),
    write,
    private: query.private,
  });
}

/** `query` with 1.0's keys first (null where it has none), then its own, then `private`. */
function inOrder(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) out[key] = query[key] ?? null;
  for (const [key, value] of Object.entries(query)) {
    if (!(key in out) && key !== "private") out[key] = value;
  }
  out.private = query.private;
  return out;
}

function sortKey(query: Record<string, unknown>): string {
  const title = typeof query.title === "string" && query.title !== "" ? query.title : null;
  return String(title ?? query.name).toLowerCase();
}

function compare(a: unknown, b: unknown): number {
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
