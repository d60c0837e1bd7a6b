/**
 * What the request pipeline needs from the service: everything views use, plus the plugin
 * registry and the boot state, which only `app/` (and `plugins/`) may touch.
 *
 * @module
 */
import type { PluginRegistry } from "../plugins/registry.ts";
import type { ViewHost } from "../views/host.ts";
import type { Request } from "../http/request.ts";
import type { BootState } from "./boot.ts";
import type { FetchHandler } from "../http/client.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { ServiceMetrics } from "./metrics.ts";
import type { PageCache } from "./page_cache.ts";
import type { DatabaseEngine as Database } from "../db/engine.ts";

export type { FetchHandler } from "../http/client.ts";

/** The slice of `svc` the pipeline uses. */
export interface AppHost extends ViewHost {
  /** The plugin registry (registration and listing; hooks are called through `hooks`). */
  readonly pm: PluginRegistry;
  /** What boot computed: plugins, routes, renderers, wrappers. */
  readonly state: BootState;
  /** Loads plugins and runs start-up hooks once; every request awaits it. */
  ready(): Promise<void>;
  /** Runs the `startup` hooks (for callers that send no requests). */
  invoke_startup(): Promise<void>;
  /** The fetch-style handler, wrapped by `asgi_wrapper` hooks once booted. */
  handler(): FetchHandler;
  /** The actor a request carries (resolved by the pipeline). */
  add_message(request: Request, message: string, type?: number): void;
  /** Starting, ready or draining, and the requests in flight. */
  readonly lifecycle: Lifecycle;
  /** The metrics of `/-/metrics`. */
  readonly metrics: ServiceMetrics;
  /** The private internal database (plugin permission SQL runs there). */
  get_internal_database(): Database;
  /** Resolves once every queued and running write is done. */
  drainWrites(): Promise<void>;
  /** Finished pages kept by ETag, or null when none are kept (`page_cache.ts`). */
  pageCache(): PageCache | null;
}
