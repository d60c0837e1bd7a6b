/**
 * Starts `Deno.serve` on the service's handler and reports where it listens; stops it
 * gracefully (`drain`).
 */
import type { AppHost } from "./host.ts";
import { withAccessLog } from "./access_log.ts";
import { inBatches } from "./batched_dispatch.ts";

/** Options for `serve()`. */
export interface ServeOptions {
  host?: string;
  port?: number;
  /** Called once listening, with the base URL of the server. */
  onListen?: (url: string) => void;
  signal?: AbortSignal;
  /**
   * Share the port with other processes listening the same way (`SO_REUSEPORT`, Linux; needs
   * `--unstable-net`): `vitrine serve --processes N` starts N servers on one port.
   */
  reusePort?: boolean;
  /** Where access log lines go (one per request, see access_log.ts); none when absent. */
  access_log?: ((line: string) => void) | null;
  /** Listen on this Unix socket instead of host and port (`--uds`). */
  unix_socket?: string;
  /** PEM certificate and private key: serve HTTPS (`--ssl-certfile`, `--ssl-keyfile`). */
  tls?: { cert: string; key: string };
}

/**
 * Serves `svc` over HTTP; resolves to the running server once start-up finished. It listens
 * from the start, so that `/-/health` can say "starting" (503) while start-up runs; other
 * requests wait for it. Start-up hook failures stop the server and reject.
 */
export async function serve(svc: AppHost, options: ServeOptions = {}): Promise<Deno.HttpServer> {
  const base = svc.handler();
  // Requests that arrive together start together (`batched_dispatch.ts`).
  const handler = inBatches(options.access_log ? withAccessLog(base, options.access_log) : base);
  const common = {
    signal: options.signal,
    onError: (error: unknown) => {
      console.error(error);
      return new Response("Internal Server Error", { status: 500 });
    },
  };
  const serveHandler = (request: Request, info: Deno.ServeHandlerInfo<Deno.Addr>) =>
    handler(request, info as Deno.ServeHandlerInfo);
  const server = options.unix_socket !== undefined
    ? Deno.serve({
      ...common,
      path: options.unix_socket,
      onListen: ({ path }) => options.onListen?.(`unix:${path}`),
    }, serveHandler)
    : Deno.serve({
      ...common,
      hostname: options.host ?? "127.0.0.1",
      port: options.port ?? 8001,
      ...(options.reusePort ? { reusePort: true } : {}),
      ...(options.tls ?? {}),
      onListen: ({ hostname, port }) => {
        svc.lifecycle.port = port;
        const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
        options.onListen?.(`${options.tls ? "https" : "http"}://${shown}:${port}`);
      },
    }, serveHandler);
  try {
    await svc.invoke_startup();
  } catch (error) {
    await server.shutdown();
    throw error;
  }
  return server;
}

/** Options of {@link drain}. */
export interface DrainOptions {
  /** Keep serving this long first, while `/-/health` answers 503 (`shutdown_delay_ms`). */
  delayMs: number;
  /** Then wait at most this long for requests and writes to finish (`shutdown_timeout_ms`). */
  timeoutMs: number;
}

/**
 * Stops `server` gracefully: readiness fails at once (`/-/health` 503) and, after `delayMs`,
 * the server stops accepting connections while the requests it has — reads too — run to their
 * end, then every queued write finishes. Resolves true when all that took less than
 * `timeoutMs`, false when the time ran out first.
 *
 * `server.shutdown()` alone closes the listening socket: connections the kernel has accepted
 * but the server has not taken yet are reset. The delay gives the load balancer time to notice
 * the failing health check and send new connections elsewhere first.
 */
export async function drain(
  svc: AppHost,
  server: Deno.HttpServer,
  options: DrainOptions,
): Promise<boolean> {
  svc.lifecycle.startDraining();
  if (options.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
  const finished = (async () => {
    await server.shutdown();
    await svc.drainWrites();
    return true;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outOfTime = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), options.timeoutMs);
  });
  try {
    return await Promise.race([finished, outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}
