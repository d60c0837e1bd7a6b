/**
 * Calls a `register_routes` view: it receives one object of named values (`svc`, `request`,
 * `scope`, `send`, `receive`) and returns a Response, or responds through `send` and returns
 * nothing. `send` is built only when the view reads it, and streams into a ReadableStream.
 */
import type { Service } from "../service.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { awaitMeMaybe } from "../util/await_me_maybe.ts";

type PluginView = (args: Record<string, unknown>) => unknown;

/** Runs the plugin view and returns what it produced as a Response. */
export async function callPluginView(
  svc: Service,
  request: Request,
  view: unknown,
): Promise<Response> {
  const sent = new SendCollector();
  const args: Record<string, unknown> = { svc, request };
  Object.defineProperties(args, {
    scope: { get: () => request.scope, enumerable: true },
    send: { get: () => sent.send, enumerable: true },
    receive: { get: () => receiveFor(request), enumerable: true },
  });
  const result = await awaitMeMaybe((view as PluginView)(args));
  if (result instanceof Response) return result;
  if (result instanceof globalThis.Response) return Response.fromWeb(result);
  const streamed = await sent.response();
  if (streamed) return streamed;
  throw new Error("The plugin view returned no response");
}

/** Collects ASGI `http.response.start` / `http.response.body` messages into a Response. */
class SendCollector {
  #start: { status: number; headers: [string, string][] } | null = null;
  #chunks: Uint8Array[] = [];

  send = (message: Record<string, unknown>): Promise<void> => {
    if (message.type === "http.response.start") {
      const headers = (message.headers as [unknown, unknown][] ?? []).map(([k, v]) =>
        [text(k), text(v)] as [string, string]
      );
      this.#start = { status: Number(message.status ?? 200), headers };
    } else if (message.type === "http.response.body" && message.body !== undefined) {
      const body = message.body;
      this.#chunks.push(
        typeof body === "string" ? new TextEncoder().encode(body) : body as Uint8Array,
      );
    }
    return Promise.resolve();
  };

  response(): Promise<Response | null> {
    if (!this.#start) return Promise.resolve(null);
    // Headers.append keeps repeated headers, notably several Set-Cookie lines.
    const headers = new Headers();
    for (const [name, value] of this.#start.headers) headers.append(name, value);
    const size = this.#chunks.reduce((total, chunk) => total + chunk.length, 0);
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      body.set(chunk, offset);
      offset += chunk.length;
    }
    const web = new globalThis.Response(body, { status: this.#start.status, headers });
    return Promise.resolve(Response.fromWeb(web));
  }
}

function text(value: unknown): string {
  return value instanceof Uint8Array ? new TextDecoder().decode(value) : String(value);
}

function receiveFor(request: Request): () => Promise<Record<string, unknown>> {
  let done = false;
  return async () => {
    if (done) return { type: "http.disconnect" };
    done = true;
    return { type: "http.request", body: await request.post_body(), more_body: false };
  };
}
