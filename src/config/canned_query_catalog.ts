/**
 * The canned queries of a database: `databases.<db>.queries` from metadata, then whatever the
 * `canned_queries` hooks add (later answers override earlier names). A query given as a bare
 * string is shorthand for `{sql: "..."}`; every definition gets its `name`.
 */
import type { HookCaller } from "../plugins/hooks.ts";
import type { Metadata } from "./metadata.ts";
import type { Actor } from "../http/actor.ts";
import { awaitMeMaybe } from "../util/await_me_maybe.ts";
import { requestMemo } from "../util/request_scope.ts";

/** What collecting canned queries needs from the service. */
export interface CannedQueryHost {
  readonly hooks: HookCaller;
  metadata(): Metadata;
}

/** A canned query definition (metadata shape) plus its name. */
export type CannedQueryDefinition = Record<string, unknown> & { name: string; sql: string };

/**
 * Every canned query of `database` for `actor`, by name, in definition order. Collected once per
 * request (a page asks several times: its view, its ETag, each permission check on the table);
 * each caller gets its own copies.
 */
export async function cannedQueries(
  svc: CannedQueryHost,
  database: string,
  actor: Actor | null,
): Promise<Map<string, CannedQueryDefinition>> {
  const queries = new Map<string, CannedQueryDefinition>();
  for (const [name, definition] of await collectedOnce(svc, database, actor)) {
    queries.set(name, { ...definition });
  }
  return queries;
}

/** The request's one collection of `database`'s canned queries for `actor` (not to be changed). */
function collectedOnce(
  svc: CannedQueryHost,
  database: string,
  actor: Actor | null,
): Promise<Map<string, CannedQueryDefinition>> {
  return requestMemo(actor, `canned_queries\u0000${database}`, () => collect(svc, database, actor));
}

async function collect(
  svc: CannedQueryHost,
  database: string,
  actor: Actor | null,
): Promise<Map<string, CannedQueryDefinition>> {
  const queries = new Map<string, CannedQueryDefinition>();
  const configured = svc.metadata().database(database)?.queries;
  addAll(queries, configured);
  for (const answer of await svc.hooks.call("canned_queries", { database, actor })) {
    addAll(queries, await awaitMeMaybe(answer));
  }
  return queries;
}

/**
 * The canned query `name` of `database` visible to `actor`, or null. Without `canned_queries`
 * hooks the answer is metadata's alone and comes back at once, not as a promise: every table and
 * row page asks (for its `ETag`, its view and its permission checks), and collecting the whole
 * catalog for the request cost a row page 5–7% of its time.
 */
export function cannedQueryFor(
  svc: CannedQueryHost,
  database: string,
  name: string,
  actor: Record<string, unknown> | null,
): CannedQueryDefinition | null | Promise<CannedQueryDefinition | null> {
  if (!svc.hooks.has("canned_queries")) {
    const configured = svc.metadata().database(database)?.queries;
    if (!configured || typeof configured !== "object" || !Object.hasOwn(configured, name)) {
      return null;
    }
    return definitionOf(name, (configured as Record<string, unknown>)[name]);
  }
  // Only the one asked for is copied.
  return collectedOnce(svc, database, actor).then((all) => {
    const definition = all.get(name);
    return definition ? { ...definition } : null;
  });
}

function addAll(into: Map<string, CannedQueryDefinition>, source: unknown): void {
  if (!source || typeof source !== "object") return;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    into.set(name, definitionOf(name, value));
  }
}

/**
 * One definition as metadata or a hook gave it (a bare string is its SQL), with its name: a copy,
 * so adding `name` never mutates the metadata object or a plugin's constant.
 */
function definitionOf(name: string, value: unknown): CannedQueryDefinition {
  const definition = typeof value === "string"
    ? { sql: value }
    : { ...(value as Record<string, unknown>) };
  return { ...definition, name } as CannedQueryDefinition;
}
