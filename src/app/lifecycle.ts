/**
 * Where a serving process is in its life, for `/-/health` and graceful restarts: starting (until
 * start-up finished), ready, then draining (after SIGTERM or SIGINT). Also counts the requests
 * in flight and remembers the port it listens on (for the connection count of `/-/metrics`).
 *
 * @module
 */

/** The readiness phases; only "ready" answers `/-/health` with 200. */
export type Phase = "starting" | "ready" | "draining";

/** One process's phase and load. */
export class Lifecycle {
  #ready = false;
  #draining = false;
  /** Requests whose response has not been returned yet. */
  inFlight = 0;
  /** Requests received so far (a server is quiet while this stays the same). */
  received = 0;
  /** The TCP port of the server, once listening (null in-process). */
  port: number | null = null;
  /** Numbers of the requests in flight, in arrival order (so the first is the oldest). */
  #open = new Set<number>();
  #arrivals = 0;
  #waiters: { upTo: number; resolve: () => void }[] = [];

  /** A request arrived: counts it and returns its number for {@link end}. */
  begin(): number {
    this.inFlight++;
    this.received++;
    const id = ++this.#arrivals;
    this.#open.add(id);
    return id;
  }

  /** The request numbered `id` has its answer. */
  end(id: number): void {
    this.inFlight--;
    this.#open.delete(id);
    if (!this.#waiters.length) return;
    const oldest = this.#open.values().next().value ?? Infinity;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.upTo >= oldest) return true;
      waiter.resolve();
      return false;
    });
  }

  /**
   * Resolves once every request that arrived before this call has its answer (later requests
   * are not waited for): a database taken away finishes the reads that had already found it.
   */
  whenEarlierRequestsEnd(): Promise<void> {
    const upTo = this.#arrivals;
    const oldest = this.#open.values().next().value ?? Infinity;
    if (oldest > upTo) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  /** The current phase. */
  get phase(): Phase {
    return this.#draining ? "draining" : this.#ready ? "ready" : "starting";
  }

  /** True once start-up finished (also while draining afterwards). */
  get started(): boolean {
    return this.#ready;
  }

  /** Start-up finished. */
  markReady(): void {
    this.#ready = true;
  }

  /** Shutting down: readiness fails from now on. */
  startDraining(): void {
    this.#draining = true;
  }
}

/** The readiness and liveness paths (under `base_url` too). */
export const HEALTH_PATH = "/-/health";
export const LIVE_PATH = "/-/health/live";

/**
 * The answer to a health check, or null when `raw` is not one. Readiness (`/-/health`) is 200
 * only when ready, 503 while starting or draining; liveness (`/-/health/live`) is 200 as long as
 * the process answers at all. Both bypass plugins, permissions and start-up.
 */
export function healthResponse(
  lifecycle: Lifecycle,
  raw: Request,
  baseUrl: string,
): Response | null {
  if (raw.method !== "GET" && raw.method !== "HEAD") return null;
  // Every request comes here first: most are told apart without parsing the URL.
  if (!raw.url.includes(HEALTH_PATH)) return null;
  // Not `new URL(raw.url)`: a hostile Host header can make the URL unparsable, and that request
  // must reach the pipeline's 400, not fail here.
  const path = raw.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").split("?")[0];
  const prefix = baseUrl === "/" ? "" : baseUrl.replace(/\/$/, "");
  const inside = prefix && path.startsWith(prefix + "/") ? path.slice(prefix.length) : path;
  let status: number;
  let body: Record<string, unknown>;
  if (inside === LIVE_PATH) {
    status = 200;
    body = { ok: true, status: "alive" };
  } else if (inside === HEALTH_PATH) {
    const phase = lifecycle.phase;
    status = phase === "ready" ? 200 : 503;
    body = { ok: status === 200, status: phase };
  } else {
    return null;
  }
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  };
  return new Response(raw.method === "HEAD" ? null : JSON.stringify(body), { status, headers });
}
