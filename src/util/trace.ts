/**
 * Request-scoped tracing (the spec's "Tracing"): while a trace is active (`withTrace`), every SQL
 * query and every `trace()` block is recorded with start, end, duration and a traceback.
 *
 * Built on AsyncLocalStorage, so traces follow `await`s and promises started inside the traced
 * function without any help; `trace_child_tasks` exists for spec parity.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";

/** One recorded event: `type`, timing, traceback and the caller's keys (sql, params, ...). */
export interface TraceEntry {
  type: string;
  /** Seconds (monotonic clock), like Python's `perf_counter`. */
  start: number;
  end: number;
  duration_ms: number;
  traceback: string[];
  [key: string]: unknown;
}

const storage = new AsyncLocalStorage<TraceEntry[]>();

/** Seconds on the monotonic clock, the unit of `start` / `end` in traces. */
export function traceClock(): number {
  return performance.now() / 1000;
}

/** True when the current async context is being traced. */
export function tracing(): boolean {
  return storage.getStore() !== undefined;
}

/** Runs `fn` with tracing on, returning its result and everything it recorded. */
export async function withTrace<T>(
  fn: () => T | Promise<T>,
): Promise<{ result: T; traces: TraceEntry[] }> {
  const traces: TraceEntry[] = [];
  const result = await storage.run(traces, fn);
  return { result, traces };
}

function stackLines(): string[] {
  const stack = new Error().stack ?? "";
  // Drop "Error" and the frames inside this module: the caller's frames are what help.
  return stack.split("\n").slice(1).map((line) => line.trim())
    .filter((line) => !line.includes("/util/trace.ts"));
}

/** Records one executed SQL query; a no-op unless a trace is active. */
export function traceSql(
  entry: { database: string | null; sql: string; params: unknown; start: number; end: number },
): void {
  const traces = storage.getStore();
  if (!traces) return;
  traces.push({
    type: "sql",
    start: entry.start,
    end: entry.end,
    duration_ms: (entry.end - entry.start) * 1000,
    traceback: stackLines(),
    database: entry.database,
    sql: entry.sql,
    params: entry.params ?? null,
  });
}

/**
 * Runs `fn` and, when tracing, records `{type, ...kwargs}` with its timing (also when it throws).
 * Works for sync and async functions; the result is returned unchanged.
 */
export function trace<T>(type: string, kwargs: Record<string, unknown>, fn: () => T): T {
  const traces = storage.getStore();
  if (!traces) return fn();
  const start = traceClock();
  const record = () => {
    const end = traceClock();
    traces.push({
      ...kwargs,
      type,
      start,
      end,
      duration_ms: (end - start) * 1000,
      traceback: stackLines(),
    });
  };
  let result: T;
  try {
    result = fn();
  } catch (error) {
    record();
    throw error;
  }
  if (result instanceof Promise) {
    return result.finally(record) as T;
  }
  record();
  return result;
}

/**
 * Wraps code that starts concurrent tasks so their queries are traced. Async context already
 * flows into promises here, so this only runs `fn`; it is kept so ported plugins read the same.
 */
export function trace_child_tasks<T>(fn: () => T): T {
  return fn();
}
