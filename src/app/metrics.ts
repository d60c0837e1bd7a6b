/**
 * Vitrine's metrics (served at `/-/metrics` in the Prometheus text format): requests by route
 * kind, method and status, their latency, SQL time, the read-worker pool, the query cache, the
 * write queues, requests in flight and open connections. Counters and histograms are updated as
 * requests and queries happen; gauges are read when the metrics are scraped.
 *
 * @module
 */

import type { Database } from "../db/database.ts";
import type { ReadPool } from "../db/pool.ts";
import type { QueryCache } from "../db/query_cache.ts";
import { type Counter, type Histogram, type Labels, MetricsRegistry } from "../util/metrics.ts";
import { VERSION } from "../version.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { openConnections } from "./connections.ts";

/** What the gauges read from the service. */
export interface MetricsSource {
  readonly lifecycle: Lifecycle;
  readonly databases: ReadonlyMap<string, Database>;
  readPool(): ReadPool;
  queryCache(): QueryCache | null;
}

/** Latency buckets, in seconds: 1 ms to 10 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** SQL buckets, in seconds: 0.1 ms to 5 s. */
const SQL_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];

/** The route kind of each request the router matched (see {@link noteRoute}). */
const routeKinds = new WeakMap<Request, string>();

/**
 * Remembers which route answered `raw`: the built-in route's name (`table`, `row`, `query`,
 * `index`, …), `static` for static files, `plugin` for plugin routes, `page` for custom pages.
 */
export function noteRoute(raw: Request, routeName: string): void {
  const kind = routeName.startsWith("plugin:")
    ? "plugin"
    : routeName.startsWith("mount:") || routeName.startsWith("static") || routeName === "favicon"
    ? "static"
    : routeName === "custom-page"
    ? "page"
    : routeName;
  routeKinds.set(raw, kind);
}

/** Marks `raw` as a health check, or as a write sent on to the LiteFS primary. */
export function noteKind(raw: Request, kind: "health" | "forwarded"): void {
  routeKinds.set(raw, kind);
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One service's metrics. */
export class ServiceMetrics {
  readonly registry: MetricsRegistry = new MetricsRegistry();
  #requests: Counter;
  #latency: Histogram;
  #sql: Histogram;
  #lockWait: Histogram;

  constructor(source: MetricsSource) {
    const r = this.registry;
    r.gauge("vitrine_build_info", "Vitrine's version", () => [[{ version: VERSION }, 1]]);
    r.gauge(
      "vitrine_ready",
      "1 when /-/health answers 200; 0 while starting or draining",
      () => [[{ phase: source.lifecycle.phase }, source.lifecycle.phase === "ready" ? 1 : 0]],
    );
    this.#requests = r.counter(
      "vitrine_http_requests_total",
      "HTTP requests answered, by route kind, method and status",
      ["kind", "method", "status"],
    );
    this.#latency = r.histogram(
      "vitrine_http_request_duration_seconds",
      "Time from a request's arrival to its response's headers, by route kind",
      ["kind"],
      REQUEST_BUCKETS,
    );
    r.gauge(
      "vitrine_http_requests_in_flight",
      "Requests being answered now",
      () => [[{}, source.lifecycle.inFlight]],
    );
    r.gauge(
      "vitrine_http_connections_open",
      "Open connections of this process: its sockets less the listening one (Linux)",
      () => {
        if (source.lifecycle.port === null) return [];
        const count = openConnections();
        return count === null ? [] : [[{}, count]];
      },
    );
    this.#sql = r.histogram(
      "vitrine_sql_duration_seconds",
      "Time SQL statements took, waiting included, by database and kind (read or write)",
      ["database", "kind"],
      SQL_BUCKETS,
    );
    this.#lockWait = r.histogram(
      "vitrine_write_lock_wait_seconds",
      "Time writes waited for another process's write lock on the same file",
      ["database"],
      SQL_BUCKETS,
    );
    r.gauge(
      "vitrine_write_queue_depth",
      "Writes queued or running, by database",
      () => [...source.databases.values()].map((db) => [{ database: db.name }, db.pending_writes]),
    );
    r.gauge(
      "vitrine_read_pool_queue_length",
      "Read queries waiting for a worker",
      () => [[{}, source.readPool().queued]],
    );
    r.gauge("vitrine_read_pool_workers", "Read workers started", () => {
      return [[{}, source.readPool().threads().length]];
    });
    r.gauge("vitrine_read_pool_workers_busy", "Read workers running a query now", () => {
      return [[{}, source.readPool().threads().filter((t) => t.busy).length]];
    });
    const cache = () => source.queryCache()?.stats() ?? null;
    r.gauge(
      "vitrine_query_cache_hits_total",
      "Queries answered from the query cache",
      () => cacheSample(cache()?.hits),
      "counter",
    );
    r.gauge(
      "vitrine_query_cache_misses_total",
      "Cacheable queries of immutable databases that had to run",
      () => cacheSample(cache()?.misses),
      "counter",
    );
    r.gauge("vitrine_query_cache_entries", "Answers kept in the query cache", () => {
      return cacheSample(cache()?.entries);
    });
    r.gauge("vitrine_query_cache_bytes", "Memory the kept answers take", () => {
      return cacheSample(cache()?.bytes);
    });
  }

  /** Counts one answered request and its latency. */
  observeRequest(raw: Request, status: number, seconds: number): void {
    const kind = routeKinds.get(raw) ?? "none";
    const method = METHODS.has(raw.method) ? raw.method : "other";
    this.#requests.inc({ kind, method, status: String(status) });
    this.#latency.observe({ kind }, seconds);
  }

  /** Records one SQL statement (or write task) on `database`. */
  observeSql(database: string, kind: "read" | "write", seconds: number): void {
    this.#sql.observe({ database, kind }, seconds);
  }

  /** Records how long a write waited for another process's lock. */
  observeLockWait(database: string, seconds: number): void {
    this.#lockWait.observe({ database }, seconds);
  }

  /** Every metric in the Prometheus text format. */
  text(): string {
    return this.registry.text();
  }
}

function cacheSample(value: number | undefined): [Labels, number][] {
  return value === undefined ? [] : [[{}, value]];
}
