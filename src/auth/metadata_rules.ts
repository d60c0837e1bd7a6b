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

/** One rule written in the configuration, as `/-/rules` lists it. */
export interface ConfiguredRule {
  /** The database, or null at instance level. */
  parent: string | null;
  /** The table or canned query, or null. */
  child: string | null;
  /** Whether the block matches the actor. */
  allow: boolean;
  /** Which block, for people. */
  reason: string;
  /** `allow block` or `permissions block`. */
  source: string;
}

/** The `allow` key guarding `action` at each level, as allowBlockDecision reads it. */
const ALLOW_KEYS: Record<string, { instance?: string; database?: string; child?: string }> = {
  "view-instance": { instance: "allow" },
  "view-database": { database: "allow" },
  "view-table": { child: "allow" },
  "view-query": { child: "allow" },
  "execute-sql": { instance: "allow_sql", database: "allow_sql" },
};

/**
 * Every configuration block that says something about `action`, with what it answers for
 * `actor`: allow blocks at the level they guard, then `permissions:` entries naming the action.
 */
export function configuredRules(
  metadata: Dict,
  actor: Actor | null,
  action: string,
): ConfiguredRule[] {
  const rules: ConfiguredRule[] = [];
  const keys = ALLOW_KEYS[action] ?? {};
  const add = (parent: string | null, child: string | null, block: unknown, what: string) => {
    const answer = decide(actor, block);
    if (answer === null) return;
    const where = child !== null ? `${parent}/${child}` : parent ?? "the instance";
    rules.push({
      parent,
      child,
      allow: answer,
      reason: `${what} of ${where}`,
      source: what.startsWith("permissions") ? "permissions block" : "allow block",
    });
  };
  if (keys.instance) add(null, null, metadata[keys.instance], `"${keys.instance}"`);
  add(null, null, dict(metadata.permissions)[action], `permissions "${action}"`);
  for (const [database, config] of Object.entries(dict(metadata.databases))) {
    const db = dict(config);
    if (keys.database) add(database, null, db[keys.database], `"${keys.database}"`);
    add(database, null, dict(db.permissions)[action], `permissions "${action}"`);
    for (const kind of ["tables", "queries"]) {
      for (const [child, childConfig] of Object.entries(dict(db[kind]))) {
        const entry = dict(childConfig);
        const guarded = kind === "tables" ? "view-table" : "view-query";
        if (keys.child && action === guarded) {
          add(database, child, entry[keys.child], `"${keys.child}"`);
        }
        add(database, child, dict(entry.permissions)[action], `permissions "${action}"`);
      }
    }
  }
  return rules;
}
