/**
 * The permission rules written in metadata: `allow` / `allow_sql` blocks and `permissions:`
 * blocks at instance, database, table and canned-query level (API-DETAILS §15).
 *
 * @module
 */

import { type Actor, actor_matches_allow, type AllowBlock } from "./allow.ts";
import type { Resource } from "./tokens.ts";

type Dict = Record<string, unknown>;

function dict(value: unknown): Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Dict : {};
}

function databaseOf(resource: Resource): string | null {
  if (typeof resource === "string") return resource;
  return Array.isArray(resource) ? resource[0] : null;
}

/** The metadata levels a resource reaches: instance, database, table, canned query. */
function levels(metadata: Dict, resource: Resource) {
  const database = databaseOf(resource);
  const databaseConfig = database === null ? {} : dict(dict(metadata.databases)[database]);
  const child = Array.isArray(resource) ? resource[1] : null;
  return {
    instance: metadata,
    database: databaseConfig,
    table: child === null ? {} : dict(dict(databaseConfig.tables)[child]),
    query: child === null ? {} : dict(dict(databaseConfig.queries)[child]),
  };
}

function decide(actor: Actor | null, block: unknown): boolean | null {
  if (block === undefined || block === null) return null;
  return actor_matches_allow(actor, block as AllowBlock);
}

/**
 * The answer of the `allow` block that guards `action` on `resource`: `allow` at instance level
 * for `view-instance`, at database level for `view-database`, at table level for `view-table`, at
 * query level for `view-query`, and `allow_sql` (database, else instance) for `execute-sql`.
 * `query` overrides the metadata's query definition (canned queries from plugins). Null when no
 * block applies.
 */
export function allowBlockDecision(
  metadata: Dict,
  actor: Actor | null,
  action: string,
  resource: Resource,
  query?: Dict | null,
): boolean | null {
  const at = levels(metadata, resource);
  switch (action) {
    case "view-instance":
      return decide(actor, at.instance.allow);
    case "view-database":
      return decide(actor, at.database.allow);
    case "view-table":
      return decide(actor, at.table.allow);
    case "view-query":
      return decide(actor, (query ?? at.query).allow);
    case "execute-sql":
      return decide(actor, at.database.allow_sql ?? at.instance.allow_sql);
    default:
      return null;
  }
}

/**
 * The answer of the most specific `permissions: {action: allow-block}` entry for `action`:
 * canned query or table first, then database, then instance. Null when none names the action.
 */
export function permissionsBlockDecision(
  metadata: Dict,
  actor: Actor | null,
  action: string,
  resource: Resource,
  query?: Dict | null,
): boolean | null {
  const at = levels(metadata, resource);
  const candidates = [
    at.table.permissions,
    (query ?? at.query).permissions,
    at.database.permissions,
    at.instance.permissions,
  ];
  for (const permissions of candidates) {
    const answer = decide(actor, dict(permissions)[action]);
    if (answer !== null) return answer;
  }
  return null;
}
