/**
 * Magic parameters (`_actor_id`, `_now_epoch`, `_random_chars_8`…): named SQL parameters starting
 * with `_` that canned queries get filled in by the service, never by the client. The built-in
 * prefixes are registered the same way `register_magic_parameters` hooks add theirs.
 */
import type { Request } from "../../http/request.ts";
import { isKeyError, keyError } from "../../util/key_error.ts";

/** `fn(key, request)` for one prefix; throws a KeyError for keys it does not know. */
export type MagicFunction = (key: string, request: Request) => unknown;

/** Prefix → function, in registration order (built-ins first, then plugins). */
export type MagicParameters = Map<string, MagicFunction>;

/** Thrown when a magic parameter cannot be filled (unknown prefix, missing actor field...). */
export class MagicParameterError extends Error {
  override name = "MagicParameterError";
}

/** The clock `_now_*` parameters read; tests swap it with {@link setMagicClock}. */
let clock: () => Date = () => new Date();

/**
 * Replaces the clock behind `_now_epoch`, `_now_date_utc` and `_now_datetime_utc` (tests pin
 * time with it); call with no argument to restore the real clock.
 */
export function setMagicClock(fn: (() => Date) | null = null): void {
  clock = fn ?? (() => new Date());
}

const BUILTIN: [string, MagicFunction][] = [
  // Actor and cookie say which of their two reasons applies: "no value" would leave a visitor
  // guessing whether to sign in or to set something.
  ["actor", (key, request) => {
    const actor = request.actor as Record<string, unknown> | null;
    if (!actor) throw cannotFill(`_actor_${key}`, "nobody is signed in");
    if (!Object.hasOwn(actor, key)) {
      throw cannotFill(`_actor_${key}`, `the signed-in actor has no "${key}" field`);
    }
    return actor[key];
  }],
  ["header", (key, request) => {
    const name = key.replaceAll("_", "-").toLowerCase();
    return request.headers[name] ?? "";
  }],
  ["cookie", (key, request) => {
    if (!Object.hasOwn(request.cookies, key)) {
      throw cannotFill(`_cookie_${key}`, `the request has no "${key}" cookie`);
    }
    return request.cookies[key];
  }],
  ["now", (key) => {
    const now = clock();
    if (key === "epoch") return Math.floor(now.getTime() / 1000);
    if (key === "date_utc") return now.toISOString().slice(0, 10);
    if (key === "datetime_utc") return now.toISOString().slice(0, 19) + "Z";
    throw keyError(key);
  }],
  ["random", (key) => {
    const match = /^chars_(\d+)$/.exec(key);
    if (!match) throw keyError(key);
    return randomHex(Number(match[1]));
  }],
];

function cannotFill(name: string, reason: string): MagicParameterError {
  return new MagicParameterError(`Cannot fill magic parameter ${name}: ${reason}`);
}

/** Most characters `_random_chars_N` gives: beyond this the SQL is wrong, not the visitor. */
const MAX_RANDOM_CHARS = 1_000_000;

/** `length` lowercase hex characters (getRandomValues fills at most 65,536 bytes per call). */
function randomHex(length: number): string {
  if (length > MAX_RANDOM_CHARS) {
    throw cannotFill(`_random_chars_${length}`, `at most ${MAX_RANDOM_CHARS} characters`);
  }
  const bytes = new Uint8Array(Math.ceil(length / 2));
  for (let start = 0; start < bytes.length; start += 65_536) {
    crypto.getRandomValues(bytes.subarray(start, start + 65_536));
  }
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, length);
}

/** Built-in prefixes plus the `[prefix, fn]` pairs returned by `register_magic_parameters`. */
export function collectMagicParameters(hookResults: unknown[]): MagicParameters {
  const registry: MagicParameters = new Map(BUILTIN);
  for (const pair of hookResults.flat()) {
    if (!Array.isArray(pair) || typeof pair[0] !== "string" || typeof pair[1] !== "function") {
      throw new Error("register_magic_parameters must return [prefix, function] pairs");
    }
    registry.set(pair[0], pair[1] as MagicFunction);
  }
  return registry;
}

/**
 * Values for the magic parameters among `names` (`_<prefix>_<rest>`). The longest registered
 * prefix wins, so `random_chars` style prefixes with underscores work too.
 */
export function fillMagicParameters(
  names: string[],
  request: Request,
  registry: MagicParameters,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const prefixes = [...registry.keys()].sort((a, b) => b.length - a.length);
  for (const name of names) {
    if (!name.startsWith("_")) continue;
    const prefix = prefixes.find((p) => name.startsWith(`_${p}_`));
    if (!prefix) throw new MagicParameterError(`Unknown magic parameter: ${name}`);
    const key = name.slice(prefix.length + 2);
    try {
      values[name] = registry.get(prefix)!(key, request);
    } catch (error) {
      if (isKeyError(error)) {
        throw cannotFill(name, `no value for "${key}"`);
      }
      throw error;
    }
  }
  return values;
}
