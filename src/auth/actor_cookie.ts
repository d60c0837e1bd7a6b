/**
 * The `ds_actor` cookie: `sign({"a": actor, "e"?: base62(expiry unix seconds)}, "actor")`
 * (API-DETAILS §13), the same bytes Datasette writes for the same secret.
 *
 * @module
 */

import type { Actor } from "./allow.ts";
import type { Signer } from "./signer.ts";

/** The cookie that carries the signed-in actor. */
export const ACTOR_COOKIE = "ds_actor";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A non-negative integer in base 62 (the alphabet of Python's `baseconv.base62`). */
export function base62Encode(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Cannot base62-encode ${value}: not a non-negative integer`);
  }
  let text = "";
  do {
    text = BASE62[value % 62] + text;
    value = Math.floor(value / 62);
  } while (value > 0);
  return text;
}

/** The integer a base-62 string stands for; NaN for characters outside the alphabet. */
export function base62Decode(text: string): number {
  let value = 0;
  for (const char of text) {
    const digit = BASE62.indexOf(char);
    if (digit < 0) return NaN;
    value = value * 62 + digit;
  }
  return value;
}

/** Options of {@link encodeActorCookie}. */
export interface ActorCookieOptions {
  /** Seconds until the cookie's actor stops being accepted; absent means no expiry. */
  expire_after?: number | null;
  /** Current time in unix seconds (tests). */
  now?: number;
}

/** The `ds_actor` cookie value for `actor`. */
export function encodeActorCookie(
  signer: Signer,
  actor: Actor,
  options: ActorCookieOptions = {},
): string {
  const data: Record<string, unknown> = { a: actor };
  if (options.expire_after) {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    data.e = base62Encode(Math.floor(now + options.expire_after));
  }
  return signer.sign(data, "actor");
}

/** The actor in a `ds_actor` cookie; null when absent, tampered, malformed or expired. */
export function decodeActorCookie(
  signer: Signer,
  cookie: string | null | undefined,
  now: number = Date.now() / 1000,
): Actor | null {
  if (!cookie) return null;
  let decoded: unknown;
  try {
    decoded = signer.unsign(cookie, "actor");
  } catch {
    return null;
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) return null;
  const { a: actor, e: expires } = decoded as Record<string, unknown>;
  if (expires) {
    const expiresAt = typeof expires === "string" ? base62Decode(expires) : NaN;
    if (!(expiresAt >= now)) return null;
  }
  if (typeof actor !== "object" || actor === null || Array.isArray(actor)) return null;
  return actor as Actor;
}
