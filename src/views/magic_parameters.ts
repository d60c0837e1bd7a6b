/**
 * Magic parameters (`_actor_id`, `_now_epoch`, `_random_chars_8`…): named SQL parameters starting
 * with `_` that canned queries get filled in by the service, never by the client. The built-in
 * prefixes are registered the same way `register_magic_parameters` hooks add theirs.
 */
import type { Request } from "../http/request.ts";
import { isKeyError, keyError } from "../util/key_error.ts";

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
  ["actor", (key, request) => {
    const actor = request.actor as Record<string, unknown> | null;
    if (!actor || !(key in actor)) throw keyError(key);
    return actor[key];
  }],
  ["header", (key, request) => {
    const name = key.replaceAll("_", "-").toLowerCase();
    return request.headers[name] ?? "";
  }],
  ["cookie", (key, request) => {
    if (!(key in request.cookies)) throw keyError(key);
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
    const length = Number(match[1]);
    const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(length / 2)));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, length);
  }],
];

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
        throw new MagicParameterError(`Cannot fill magic parameter ${name}: no value for "${key}"`);
      }
      throw error;
    }
  }
  return values;
}
