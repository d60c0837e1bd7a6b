/**
 * A canned or stored query in the frozen 1.0 API's shape: 1.0's keys in 1.0's order (null where
 * the query has none), as the database JSON lists queries and as a query page's
 * `_extra=metadata` describes its query. Canned queries keep `write`, the key clients of the
 * spec's era read.
 *
 * @module
 */

import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";

/** Metadata keys that are configuration, not description: left out of a page's JSON `metadata`. */
const CONFIG_KEYS = new Set(["queries", "tables", "plugins", "permissions", "allow", "allow_sql"]);

/** A database's metadata without its configuring keys (the database JSON's `metadata`). */
export function describingMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !CONFIG_KEYS.has(key)));
}

/**
 * A query page's `_extra=metadata`: its query in 1.0's shape without `source`, `write` and
 * `private`, as 1.0 describes it.
 */
export function queryMetadataJson(
  database: string,
  query: CannedQueryDefinition,
): Record<string, unknown> {
  const listed = query.stored
    ? inOrder({ ...query, database })
    : cannedQueryJson(database, { ...query, private: false }, true);
  const { source: _s, write: _w, private: _p, stored: _st, shared_with: _sw, ...rest } = listed;
  return rest;
}

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

/** A canned query's metadata (`write`, `params`, …) in 1.0's keys, plus `write`. */
export function cannedQueryJson(
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
export function inOrder(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) out[key] = query[key] ?? null;
  for (const [key, value] of Object.entries(query)) {
    if (!(key in out) && key !== "private") out[key] = value;
  }
  out.private = query.private;
  return out;
}
