/**
 * The metadata as a given actor may see it: `/-/metadata` and `/-/config` would otherwise list the
 * names, descriptions and canned SQL of databases, tables and queries hidden from that actor.
 *
 * @module
 */

import type { Actor } from "./allow.ts";

type Dict = Record<string, unknown>;

/** The service calls this needs. */
export interface VisibilityHost {
  check_visibility(
    actor: Actor | null,
    options: { action: string; resource: string | [string, string] },
  ): Promise<[boolean, boolean]>;
}

function isDict(value: unknown): value is Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `metadata` without the databases, tables and canned queries `actor` may not see. */
export async function visibleMetadata(
  host: VisibilityHost,
  actor: Actor | null,
  metadata: Dict,
): Promise<Dict> {
  if (!isDict(metadata.databases)) return metadata;
  const databases: Dict = {};
  for (const [database, config] of Object.entries(metadata.databases)) {
    const [visible] = await host.check_visibility(actor, {
      action: "view-database",
      resource: database,
    });
    if (!visible) continue;
    if (!isDict(config)) {
      databases[database] = config;
      continue;
    }
    const copy: Dict = { ...config };
    for (const [key, action] of [["tables", "view-table"], ["queries", "view-query"]]) {
      if (!isDict(config[key])) continue;
      const kept: Dict = {};
      for (const [name, value] of Object.entries(config[key] as Dict)) {
        const [shown] = await host.check_visibility(actor, { action, resource: [database, name] });
        if (shown) kept[name] = value;
      }
      copy[key] = kept;
    }
    databases[database] = copy;
  }
  return { ...metadata, databases };
}
