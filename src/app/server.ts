/** Starts `Deno.serve` on the service's handler and reports where it listens. */
import type { AppHost } from "./host.ts";
import { withAccessLog } from "./access_log.ts";

/** Options for `serve()`. */
export interface ServeOptions {
  host?: string;
  port?: number;
  /** Called once listening, with the base URL of the server. */
  onListen?: (url: string) => void;
  signal?: AbortSignal;
  /** Where access log lines go (one per request, see access_log.ts); none when absent. */
  access_log?: ((line: string) => void) | null;
}

/** Serves `svc` over HTTP; resolves to the running server. Start-up hook failures reject. */
export async function serve(svc: AppHost, options: ServeOptions = {}): Promise<Deno.HttpServer> {
  await svc.invoke_startup();
  const base = svc.handler();
  const handler = options.access_log ? withAccessLog(base, options.access_log) : base;
  return Deno.serve({
    hostname: options.host ?? "127.0.0.1",
    port: options.port ?? 8001,
    signal: options.signal,
    onListen: ({ hostname, port }) => {
      const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
      options.onListen?.(`http://${shown}:${port}`);
    },
    onError: (error) => {
      console.error(error);
      return new Response("Internal Server Error", { status: 500 });
    },
  }, (request, info) => handler(request, info));
}
