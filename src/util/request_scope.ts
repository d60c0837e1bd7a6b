/**
 * What one request carries through every `await` it makes (AsyncLocalStorage): when it arrived
 * (`db/request_clock.ts` limits its queries from then) and answers worth computing once per
 * request — a table page asks whether the same actor may see the same table several times, and
 * each answer calls plugin hooks.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";

/** One request's scope. */
interface RequestScope {
  /** Arrival on the shared wall clock (`wallClock()` in db/read_query.ts). */
  readonly arrival: number;
  /** Time its queries waited for a read worker, not charged to their limits (ms). */
  waited: number;
  /** Memoised answers: by owner (an actor object, or null), then by key. */
  memo: Map<object | null, Map<string, unknown>> | null;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` as (part of) a request that arrived at `arrival`, with an empty memo. */
export function withRequestScope<T>(arrival: number, fn: () => T): T {
  return scopes.run({ arrival, waited: 0, memo: null }, fn);
}

/**
 * The current request's arrival time, moved by the time its queries waited for a read worker
 * ({@link creditScopeWait}), or null outside a request.
 */
export function scopeArrival(): number | null {
  const scope = scopes.getStore();
  return scope ? scope.arrival + scope.waited : null;
}

/**
 * Moves the current request's arrival by `ms` its queries waited for a read worker, up to `bound`
 * in all; nothing outside a request.
 */
export function creditScopeWait(ms: number, bound: number): void {
  const scope = scopes.getStore();
  if (scope) scope.waited = Math.min(bound, scope.waited + ms);
}

/**
 * `compute()`'s answer for (`owner`, `key`), computed once per request: later calls in the same
 * request get the first call's value (a promise is kept as it is, and forgotten if it rejects).
 * Outside a request, `compute()` runs every time. `owner` is compared by identity (the request's
 * actor object), so answers for one actor are never given to another.
 */
export function requestMemo<T>(owner: object | null, key: string, compute: () => T): T {
  const scope = scopes.getStore();
  if (!scope) return compute();
  scope.memo ??= new Map();
  let answers = scope.memo.get(owner);
  if (!answers) scope.memo.set(owner, answers = new Map());
  if (answers.has(key)) return answers.get(key) as T;
  const value = compute();
  answers.set(key, value);
  if (value instanceof Promise) value.catch(() => answers.delete(key));
  return value;
}
