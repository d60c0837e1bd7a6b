/**
 * The small pure pieces of permission checks: what `ensure_permissions` accepts and how it is
 * split, the chain `check_visibility` walks, the memo key of a check and the 403 of a denial.
 * Apart from the checker so that the checker reads as the order of its rules.
 *
 * @module
 */

import { Forbidden } from "../http/errors.ts";
import type { Resource } from "./tokens.ts";

/** One entry of `ensure_permissions`: an action, or an (action, resource) pair. */
export type PermissionSpec = string | readonly [string, Resource];

/** An action and its resource as a memo key. */
export function opinionKey(action: string, resource: Resource): string {
  return `${action}\u0000${resourceKey(resource)}`;
}

/** A resource as part of a memo key: none, a database, or a (database, child) pair. */
function resourceKey(resource: Resource): string {
  if (resource === null || resource === undefined) return "";
  if (typeof resource === "string") return `s\u0000${resource}`;
  return `a\u0000${JSON.stringify(resource)}`;
}

/** The action and resource of one entry; a TypeError for anything else. */
export function splitSpec(permission: PermissionSpec): [string, Resource] {
  if (typeof permission === "string") return [permission, null];
  if (Array.isArray(permission) && permission.length === 2 && typeof permission[0] === "string") {
    return [permission[0], permission[1] ?? null];
  }
  throw new TypeError(
    `Permissions must be action strings or [action, resource] pairs, got ${
      JSON.stringify(permission)
    }`,
  );
}

/** The checks `check_visibility` makes for an action on a resource when given no list. */
export function visibilityChain(action: string | undefined, resource: Resource): PermissionSpec[] {
  if (!action) throw new TypeError("check_visibility needs an action or a list of permissions");
  const database = typeof resource === "string" ? resource : resource?.[0];
  if ((action === "view-table" || action === "view-query") && Array.isArray(resource)) {
    return [[action, resource], ["view-database", resource[0]], "view-instance"];
  }
  if (action === "view-database" && database !== undefined) {
    return [["view-database", database], "view-instance"];
  }
  return [resource ? [action, resource] : action];
}

/** The 403 for a denied action: a sentence for people that still names the action for code. */
export function denied(action: string): Forbidden {
  return new Forbidden(`Permission denied: ${action}`, { title: "Permission denied" });
}
