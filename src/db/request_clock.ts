/**
 * When the request being served arrived, so that every query it runs is limited from that moment
 * (queue waits included), not from when the query itself started: no request outlives
 * `sql_time_limit_ms`. The pipeline sets it per request; code outside a request has none.
 *
 * @module
 */

import { wallClock } from "./read_query.ts";
import { creditScopeWait, scopeArrival, withRequestScope } from "../util/request_scope.ts";
import { QUEUE_WAIT_FACTOR } from "./pool_jobs.ts";

/** Runs `fn` as (part of) a request that arrived at `arrival` on the {@link wallClock}. */
export function withArrival<T>(arrival: number, fn: () => T): T {
  return withRequestScope(arrival, fn);
}

/** Runs `fn` as a fresh start: its queries get their whole time limit (e.g. each page of a stream). */
export function withFreshArrival<T>(fn: () => T): T {
  return withRequestScope(wallClock(), fn);
}

/**
 * Not charged to the current request: `ms` one of its queries waited for a read worker. Its
 * later queries are limited from its arrival moved by such waits, up to `QUEUE_WAIT_FACTOR` times
 * `limitMs` in all (the pool gives each query the same for its own wait).
 */
export function creditQueueWait(ms: number, limitMs: number): void {
  if (ms > 0 && limitMs > 0) creditScopeWait(ms, limitMs * QUEUE_WAIT_FACTOR);
}

/**
 * The current request's arrival time (moved by its queries' waits for a worker), or null outside
 * a request.
 */
export function requestArrival(): number | null {
  return scopeArrival();
}

/** Milliseconds left of a `limitMs` budget counted from the request's arrival (null outside one). */
export function requestTimeLeft(limitMs: number): number | null {
  const arrival = requestArrival();
  return arrival === null ? null : arrival + limitMs - wallClock();
}
