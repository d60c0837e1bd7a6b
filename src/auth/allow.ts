/**
 * Allow blocks: the `allow`, `allow_sql` and `permissions:` values of metadata (API-DETAILS §15).
 *
 * @module
 */

import type { Actor } from "../http/actor.ts";

export type { Actor };

/** An allow block: `true`, `false`, absent, or `{key: value | [values] | "*"}`. */
export type AllowBlock = boolean | null | undefined | Record<string, unknown>;

/**
 * Does `actor` match `allow`? Keys of the block are OR-ed: the actor matches when any key matches.
 *
 * - an absent block (`undefined` / `null`) allows everybody; `true` / `false` are literal;
 * - `{"unauthenticated": true}` matches the anonymous (null) actor;
 * - `{"id": "*"}` matches any actor that has the key;
 * - list values match any of their members, and list-valued actor keys match when the two lists
 *   share a member.
 *
 * @example
 * ```ts
 * actor_matches_allow({ id: "root" }, { id: ["root", "alice"] }); // true
 * actor_matches_allow(null, { id: "*" });                         // false
 * ```
 */
export function actor_matches_allow(actor: Actor | null | undefined, allow: AllowBlock): boolean {
  if (allow === true) return true;
  if (allow === false) return false;
  if (allow === null || allow === undefined) return true;
  if (typeof allow !== "object" || Array.isArray(allow)) return false;
  if (!actor && allow.unauthenticated === true) return true;
  const subject: Actor = actor ?? {};
  for (const [key, wanted] of Object.entries(allow)) {
    if (wanted === "*" && key in subject) return true;
    const actorValue = subject[key];
    if (actorValue === null || actorValue === undefined) continue;
    const wantedValues = Array.isArray(wanted) ? wanted : [wanted];
    const actorValues = Array.isArray(actorValue) ? actorValue : [actorValue];
    if (actorValues.some((value) => wantedValues.includes(value))) return true;
  }
  return false;
}
