/**
 * Signed API tokens, `dstok_` + sign(payload, "token") (API-DETAILS §14), and the `_r`
 * restrictions they carry. Restrictions only ever narrow what an actor may do.
 *
 * @module
 */

import type { Actor } from "./allow.ts";
import { BUILTIN_PERMISSIONS, type PermissionRegistry } from "./permission_registry.ts";
import type { Signer } from "./signer.ts";
import { BadSignature } from "./signer.ts";

/** The prefix that marks Vitrine/Datasette signed tokens. */
export const TOKEN_PREFIX = "dstok_";

/** A resource: a database name, a (database, table-or-query) pair, or none. */
export type Resource = string | readonly [string, string] | null | undefined;

/** The `_r` payload: actions for all resources, per database, per database and resource. */
export interface Restrictions {
  a?: string[];
  d?: Record<string, string[]>;
  r?: Record<string, Record<string, string[]>>;
}

/** Options of {@link createToken}; the spec's keyword arguments plus an injectable clock. */
export interface CreateTokenOptions {
  /** Lifetime in seconds; absent or 0 means the token never expires (subject to the TTL setting). */
  expires_after?: number | null;
  /** Actions allowed on every resource. */
  restrict_all?: Iterable<string> | null;
  /** Database → actions allowed on it. */
  restrict_database?: Record<string, Iterable<string>> | null;
  /** Database → resource → actions allowed on it. */
  restrict_resource?: Record<string, Record<string, Iterable<string>>> | null;
  /** Current time in unix seconds (tests). */
  now?: number;
}

/** Thrown by {@link actorFromToken} for a `dstok_` token that cannot be trusted. */
export class InvalidToken extends Error {
  override name = "InvalidToken";
}

// Built-in abbreviations are stable, so tokens minted before plugins load (e.g. `svc.create_token`
// before the first request) still carry the same bytes as those minted afterwards.
const BUILTIN_ABBREVIATIONS = new Map(
  BUILTIN_PERMISSIONS.map((permission) => [permission.name, permission.abbr]),
);

function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * A signed token for `actor_id` (`svc.create_token`). Actions are stored by abbreviation when the
 * registry knows one.
 *
 * @example
 * ```ts
 * createToken(signer, "alice", { expires_after: 3600, restrict_all: ["view-instance"] }, registry);
 * // "dstok_eyJhIjoiYWxpY2UiLC..."
 * ```
 */
export function createToken(
  signer: Signer,
  actor_id: string,
  options: CreateTokenOptions = {},
  registry?: PermissionRegistry,
): string {
  const abbreviate = (actions: Iterable<string>) =>
    [...actions].map((action) =>
      registry?.find(action)?.abbr ?? BUILTIN_ABBREVIATIONS.get(action) ?? action
    );
  // Key order a, t, d, _r matters: it fixes the signed bytes.
  const payload: Record<string, unknown> = { a: actor_id, t: options.now ?? unixNow() };
  if (options.expires_after) payload.d = options.expires_after;
  const { restrict_all, restrict_database, restrict_resource } = options;
  if (restrict_all || restrict_database || restrict_resource) {
    const restrictions: Restrictions = {};
    if (restrict_all) restrictions.a = abbreviate(restrict_all);
    if (restrict_database) {
      restrictions.d = {};
      for (const [database, actions] of Object.entries(restrict_database)) {
        restrictions.d[database] = abbreviate(actions);
      }
    }
    if (restrict_resource) {
      restrictions.r = {};
      for (const [database, resources] of Object.entries(restrict_resource)) {
        const perResource: Record<string, string[]> = (restrictions.r[database] ??= {});
        for (const [resource, actions] of Object.entries(resources)) {
          perResource[resource] = abbreviate(actions);
        }
      }
    }
    payload._r = restrictions;
  }
  return TOKEN_PREFIX + signer.sign(payload, "token");
}

/** Settings and clock that {@link actorFromToken} needs. */
export interface ActorFromTokenOptions {
  /** The `allow_signed_tokens` setting. */
  allow_signed_tokens: boolean;
  /** The `max_signed_tokens_ttl` setting in seconds; 0 means no cap. */
  max_signed_tokens_ttl: number;
  /** Current time in unix seconds (tests). */
  now?: number;
}

/**
 * The actor a bearer token stands for: `{id, token: "dstok", token_expires?, _r?}`.
 * Returns null when `token` is not a `dstok_` token at all (another plugin may own it).
 *
 * @throws {InvalidToken} when signed tokens are disabled, or the token is forged, malformed or
 * expired
 */
export function actorFromToken(
  signer: Signer,
  token: string,
  options: ActorFromTokenOptions,
): Actor | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  if (!options.allow_signed_tokens) {
    throw new InvalidToken("Signed tokens are not enabled for this instance");
  }
  let decoded: unknown;
  try {
    decoded = signer.unsign(token.slice(TOKEN_PREFIX.length), "token");
  } catch (error) {
    if (error instanceof BadSignature) throw new InvalidToken("Invalid token signature");
    throw error;
  }
  if (!isRecord(decoded) || !("a" in decoded)) throw new InvalidToken("Malformed token");
  const created = decoded.t;
  if (!Number.isInteger(created)) throw new InvalidToken("Malformed token: no creation time");
  let duration = decoded.d ?? null;
  if (duration !== null && !Number.isInteger(duration)) {
    throw new InvalidToken("Malformed token: bad duration");
  }
  const ttl = options.max_signed_tokens_ttl;
  // The TTL setting caps every token, including those created without an expiry.
  if (ttl && (duration === null || (duration as number) > ttl)) duration = ttl;
  if (duration) {
    const now = options.now ?? unixNow();
    if (now - (created as number) > (duration as number)) throw new InvalidToken("Token expired");
  }
  const actor: Actor = { id: decoded.a, token: "dstok" };
  if (duration) actor.token_expires = (created as number) + (duration as number);
  if ("_r" in decoded) actor._r = decoded._r;
  return actor;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Do token restrictions `_r` leave `action` on `resource` allowed? Listed actions match by name or
 * abbreviation; `view-instance` and `view-database` are implied by any listed action that
 * implies viewing (in that database, for `view-database`).
 */
export function restrictionsAllow(
  restrictions: unknown,
  action: string,
  resource: Resource,
  registry: PermissionRegistry,
): boolean {
  if (!isRecord(restrictions)) return false;
  const r = restrictions as Restrictions;
  const permission = registry.find(action);
  const names = new Set([action, permission?.name, permission?.abbr].filter(isString));
  const listed = (actions: unknown) =>
    Array.isArray(actions) && actions.some((listedAction) => names.has(listedAction));

  const database = typeof resource === "string" ? resource : resource?.[0];
  if (listed(r.a)) return true;
  if (database !== undefined && listed(r.d?.[database])) return true;
  if (Array.isArray(resource) && listed(r.r?.[resource[0]]?.[resource[1]])) return true;

  const impliesView = (actions: unknown, needsDatabase: boolean) =>
    Array.isArray(actions) && actions.some((listedAction) => {
      const granted = registry.find(String(listedAction));
      return granted !== undefined && granted.implies_can_view &&
        (!needsDatabase || granted.takes_database);
    });
  const perResource = (db: string) => Object.values(r.r?.[db] ?? {});
  if (permission?.name === "view-instance") {
    const all = [r.a, ...Object.values(r.d ?? {})];
    for (const db of Object.keys(r.r ?? {})) all.push(...perResource(db));
    return all.some((actions) => impliesView(actions, false));
  }
  if (permission?.name === "view-database" && database !== undefined) {
    return [r.a, r.d?.[database], ...perResource(database)].some((actions) =>
      impliesView(actions, true)
    );
  }
  return false;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}
