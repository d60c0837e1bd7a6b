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
  /** What was traced: `sql`, or a plugin's label. */
  type: string;
  /** Seconds (monotonic clock), like Python's `perf_counter`. */
  start: number;
  /** End time in ms. */
  end: number;
  /** How long it took. */
  duration_ms: number;
  /** Where it was called from. */
  traceback: string[];
  /** The values given with it. */
  [key: string]: unknown;
}

const storage = new AsyncLocalStorage<TraceEntry[]>();

/** Seconds on the monotonic clock, the unit of `start` / `end` in traces. */
export function traceClock(): number {
  return performance.now() / 1000;
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
  entry: {
    database: string | null;
    sql: string;
    params: unknown;
    start: number;
    end: number;
    /** How a read ended, when not by running to its end: see {@link ReadOutcome}. */
    outcome?: ReadOutcome;
  },
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
    ...(entry.outcome ? { [entry.outcome]: true } : {}),
  });
}

/**
 * A read that did not run to its end, as its trace entry says (a key set to `true`): `cached`
 * when the query cache answered it (it never ran), `interrupted` when its time limit stopped it.
 * What a request really cost the database, and what a benchmark replaying its SQL may skip.
 */
export type ReadOutcome = "cached" | "interrupted";

/** The open record of a `trace()` block: its keys (add more while it runs) and a disposer. */
export type TraceInfo = Record<string, unknown> & Disposable;

/**
 * Records a block of work on the current trace with `{type, ...kwargs}`, its start, end,
 * duration and a traceback — the spec's `trace(type_string, **kwargs)` context manager.
 *
 * With `fn`, runs it and records when it finishes (also when it throws); sync and async
 * functions both work and the result is returned unchanged:
 *
 * ```ts
 * const rows = await trace("geocode", { address }, () => geocode(address));
 * ```
 *
 * Without `fn`, returns the block's keys as an object to use with `using`; keys added to it
 * while the block runs are recorded too, when it is disposed:
 *
 * ```ts
 * {
 *   using info = trace("fetch", { url });
 *   info.status = (await fetch(url)).status;
 * }
 * ```
 *
 * Outside a trace (no `?_trace=1`), nothing is recorded and the cost is one lookup.
 */
export function trace(type: string, kwargs?: Record<string, unknown>): TraceInfo;
/** Runs `fn` and records it as one trace entry. */
export function trace<T>(type: string, kwargs: Record<string, unknown>, fn: () => T): T;
export function trace<T>(
  type: string,
  kwargs: Record<string, unknown> = {},
  fn?: () => T,
): T | TraceInfo {
  const traces = storage.getStore();
  const info = { ...kwargs };
  // Taken now, at the caller's line: at the end of an async block the stack would only show the
  // promise machinery that settled it.
  const traceback = traces ? stackLines() : [];
  const start = traceClock();
  let recorded = false;
  const record = () => {
    if (!traces || recorded) return;
    recorded = true;
    const end = traceClock();
    traces.push({
      ...info,
      type,
      start,
      end,
      duration_ms: (end - start) * 1000,
      traceback,
    });
  };
  if (!fn) {
    Object.defineProperty(info, Symbol.dispose, { value: record, enumerable: false });
    return info as TraceInfo;
  }
  if (!traces) return fn();
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
