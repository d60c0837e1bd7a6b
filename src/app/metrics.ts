/**
 * Vitrine's metrics (served at `/-/metrics` in the Prometheus text format): requests by route
 * kind, method and status, their latency, SQL time, the read-worker pool, the query cache, the
 * write queues, requests in flight and open connections. Counters and histograms are updated as
 * requests and queries happen; gauges are read when the metrics are scraped.
 *
 * @module
 */

import type { DatabaseEngine as Database } from "../db/engine.ts";
import type { ReadPool } from "../db/pool.ts";
import type { QueryCache } from "../db/query_cache.ts";
import type { PageCache } from "./page_cache.ts";
import {
  type Counter,
  familiesText,
  type Histogram,
  type Labels,
  type MetricFamily,
  MetricsRegistry,
} from "../util/metrics.ts";
import { VERSION } from "../version.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { openConnections, openDescriptors } from "./connections.ts";
import { sqliteMemoryUsed } from "../sqlite/guard.ts";

/** What the gauges read from the service. */
export interface MetricsSource {
  readonly lifecycle: Lifecycle;
  readonly databases: ReadonlyMap<string, Database>;
  readPool(): ReadPool;
  queryCache(): QueryCache | null;
  pageCache(): PageCache | null;
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

/** How often a copy of a `--processes` server writes its metrics down for the others. */
const SHARE_INTERVAL_MS = 1_000;
/** A copy's metrics written longer ago than this are left out: that copy is gone or stuck. */
const SHARE_STALE_MS = 15_000;

/** What one copy writes down (`process-N.json` in the shared folder). */
interface SharedMetrics {
  process: number;
  writtenAt: number;
  families: MetricFamily[];
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One service's metrics. */
export class ServiceMetrics {
  readonly registry: MetricsRegistry = new MetricsRegistry();
  #requests: Counter;
  #latency: Histogram;
  #sql: Histogram;
  #lockWait: Histogram;
  #sharing:
    | { dir: string; process: number; count: number; timer: ReturnType<typeof setInterval> }
    | null = null;

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
    // The usual process metrics of Prometheus clients, and SQLite's share of the memory.
    r.gauge(
      "process_resident_memory_bytes",
      "Resident memory of this process",
      () => [[{}, Deno.memoryUsage().rss]],
    );
    r.gauge("process_open_fds", "Open file descriptors of this process (Linux)", () => {
      const count = openDescriptors();
      return count === null ? [] : [[{}, count]];
    });
    r.gauge(
      "vitrine_sqlite_memory_bytes",
      "Memory SQLite holds for every connection of this process, read workers' included",
      () => [[{}, sqliteMemoryUsed()]],
    );
    cacheMetrics(r, "vitrine_query_cache", () => source.queryCache()?.stats() ?? null, {
      hits: "Queries answered from the query cache",
      misses: "Cacheable queries of immutable databases that had to run",
      entries: "Answers kept in the query cache",
      bytes: "Memory the kept answers take",
    });
    cacheMetrics(r, "vitrine_page_cache", () => source.pageCache()?.stats() ?? null, {
      hits: "Requests answered with a kept page, without running their view",
      misses: "Requests for a page that could be kept, whose view had to run",
      entries: "Pages kept in the page cache",
      bytes: "Memory the kept pages take",
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

  /**
   * Makes this process copy `process` of `count` of a server on one port (`serve --processes`),
   * which a scrape reaches at random: from now on it writes its metrics to `dir` every second,
   * and {@link text} answers every copy's metrics, each series labelled `process="N"`, so that
   * any scrape sees them all (another copy's figures are at most a second old).
   */
  shareWith(dir: string, process: number, count: number): void {
    this.stopSharing();
    const timer = setInterval(() => this.#writeShared(), SHARE_INTERVAL_MS);
    // The timer must not keep a stopping server alive.
    Deno.unrefTimer(timer);
    this.#sharing = { dir, process, count, timer };
    this.#writeShared();
  }

  /** Stops writing this copy's metrics for the others (the service is closing). */
  stopSharing(): void {
    if (this.#sharing) clearInterval(this.#sharing.timer);
    this.#sharing = null;
  }

  #writeShared(): void {
    const sharing = this.#sharing!;
    const shared: SharedMetrics = {
      process: sharing.process,
      writtenAt: Date.now(),
      families: this.registry.families({ process: String(sharing.process) }),
    };
    const path = sharedPath(sharing.dir, sharing.process);
    try {
      // Renamed into place, so a scrape never reads half a file.
      Deno.writeTextFileSync(`${path}.tmp`, JSON.stringify(shared));
      Deno.renameSync(`${path}.tmp`, path);
    } catch {
      // The folder is gone (the supervisor is ending): the next scrape shows this copy alone.
    }
  }

  /** Every metric in the Prometheus text format (with `shareWith`, every copy's). */
  text(): string {
    if (!this.#sharing) return this.registry.text();
    const { dir, process, count } = this.#sharing;
    const sets: MetricFamily[][] = [];
    for (let other = 1; other <= count; other++) {
      if (other === process) {
        sets.push(this.registry.families({ process: String(process) }));
        continue;
      }
      const shared = readShared(sharedPath(dir, other));
      if (shared && Date.now() - shared.writtenAt < SHARE_STALE_MS) sets.push(shared.families);
    }
    return familiesText(sets);
  }
}

function sharedPath(dir: string, process: number): string {
  return `${dir}/process-${process}.json`;
}

/**
 * What another copy wrote, or null (not written yet, or the folder is gone). Read by name, not
 * by listing the folder: a listing may miss a file that is being renamed into place at that
 * moment, where opening it by name finds the old file or the new one.
 */
function readShared(path: string): SharedMetrics | null {
  try {
    const shared = JSON.parse(Deno.readTextFileSync(path));
    return Array.isArray(shared?.families) && typeof shared.writtenAt === "number" ? shared : null;
  } catch {
    return null;
  }
}

/** What a cache reports (`QueryCache.stats`, `PageCache.stats`). */
type CacheStats = { hits: number; misses: number; entries: number; bytes: number };

/** `<prefix>_hits_total`, `_misses_total`, `_entries` and `_bytes` of one cache (none while off). */
function cacheMetrics(
  r: MetricsRegistry,
  prefix: string,
  stats: () => CacheStats | null,
  help: Record<keyof CacheStats, string>,
): void {
  r.gauge(`${prefix}_hits_total`, help.hits, () => cacheSample(stats()?.hits), "counter");
  r.gauge(`${prefix}_misses_total`, help.misses, () => cacheSample(stats()?.misses), "counter");
  r.gauge(`${prefix}_entries`, help.entries, () => cacheSample(stats()?.entries));
  r.gauge(`${prefix}_bytes`, help.bytes, () => cacheSample(stats()?.bytes));
}

function cacheSample(value: number | undefined): [Labels, number][] {
  return value === undefined ? [] : [[{}, value]];
}
