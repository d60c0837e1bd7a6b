/**
 * Calls a `register_routes` view: it receives one object of named values (`svc`, `request`,
 * `scope`, `send`, `receive`) and returns a Response, or responds through `send` and returns
 * nothing. A response started through `send` is answered at once and its body streams: later
 * `http.response.body` messages flow to the client while the view keeps running.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { awaitMeMaybe } from "../../util/await_me_maybe.ts";
import { withinTimeLimit } from "../../util/time_limit.ts";

type PluginView = (args: Record<string, unknown>) => unknown;

/** Views of Vitrine's own default plugins (see {@link ownRoutes}). */
const ownViews = new WeakSet<object>();

/**
 * Marks `routes` as Vitrine's own (its default plugins serve the write API and the history through
 * `register_routes`): their views are not held to `hook_time_limit_ms`, which guards against a
 * plugin that hangs. Cut off, a write that ran past it (an upload part, an alter or a revert on a
 * loaded machine) was answered as failed with a 500 while it went on and committed. Their work
 * has limits of its own (SQL time limits, request size).
 */
export function ownRoutes<T extends readonly (readonly [unknown, object])[]>(routes: T): T {
  for (const [, view] of routes) ownViews.add(view);
  return routes;
}

/** Runs the plugin view and returns what it produced as a Response. */
export async function callPluginView(
  svc: ViewHost,
  request: Request,
  view: unknown,
): Promise<Response> {
  const sender = new StreamingSend();
  const args: Record<string, unknown> = { svc, request };
  Object.defineProperties(args, {
    scope: { get: () => request.scope, enumerable: true },
    send: { get: () => sender.send, enumerable: true },
    receive: { get: () => receiveFor(request), enumerable: true },
  });
  const running = Promise.resolve().then(() => awaitMeMaybe((view as PluginView)(args)));
  // Like a hook, a plugin's view must answer (return, or start a response) within
  // hook_time_limit_ms; Vitrine's own are not cut off (see ownRoutes).
  const limit = ownViews.has(view as object) ? 0 : Number(svc.setting("hook_time_limit_ms"));
  const first = await withinTimeLimit(
    Promise.race([
      running.then((result) => ({ returned: true as const, result })),
      sender.started.then(() => ({ returned: false as const, result: undefined })),
    ]),
    limit,
    () =>
      new Error(
        `The plugin view for ${request.path} did not answer within ${limit} ms ` +
          "(the hook_time_limit_ms setting); what it was doing may still finish",
      ),
  );
  if (first.returned) {
    const { result } = first;
    if (result instanceof Response) return result;
    if (result instanceof globalThis.Response) return Response.fromWeb(result);
    if (!sender.isStarted) throw new Error("The plugin view returned no response");
    sender.close();
    return sender.response();
  }
  // The view answered through `send` and may still be writing the body.
  running.then(() => sender.close(), (error) => sender.fail(error));
  return sender.response();
}

/** ASGI `send` into a streaming Response: start gives status and headers, bodies stream. */
class StreamingSend {
  #status = 200;
  #headers = new Headers();
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #body = new ReadableStream<Uint8Array>({ start: (c) => void (this.#controller = c) });
  #closed = false;
  #markStarted: () => void = () => {};
  /** Resolves once the view sent `http.response.start`. */
  readonly started: Promise<void> = new Promise((resolve) => (this.#markStarted = resolve));
  isStarted = false;

  send = (message: Record<string, unknown>): Promise<void> => {
    if (message.type === "http.response.start") {
      this.#status = Number(message.status ?? 200);
      // Headers.append keeps repeated headers, notably several Set-Cookie lines.
      for (const [name, value] of (message.headers as [unknown, unknown][] ?? [])) {
        this.#headers.append(text(name), text(value));
      }
      this.isStarted = true;
      this.#markStarted();
    } else if (message.type === "http.response.body" && !this.#closed) {
      const body = message.body;
      if (body !== undefined && body !== null) {
        this.#controller?.enqueue(
          typeof body === "string" ? new TextEncoder().encode(body) : body as Uint8Array,
        );
      }
      if (!message.more_body) this.close();
    }
    return Promise.resolve();
  };

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller?.close();
  }

  fail(error: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    console.error(error);
    this.#controller?.error(error);
  }

  response(): Response {
    const web = new globalThis.Response(this.#body, {
      status: this.#status,
      headers: this.#headers,
    });
    return Response.fromWeb(web);
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
