/**
 * The spec's Response class: what views and plugin routes return. Converted to a web Response once,
 * at the edge of the pipeline.
 */
import { type CookieOptions, serializeCookie } from "./cookies.ts";
import { jsonText } from "./json_text.ts";
import { HeaderList } from "./header_list.ts";

/** A response body: text, bytes or a stream of byte chunks. */
export type ResponseBody = string | Uint8Array | ReadableStream<Uint8Array> | null;

/** Options of the Response constructor. */
export interface ResponseOptions {
  status?: number;
  headers?: Record<string, string>;
  content_type?: string | null;
}

/** Options of the `text`/`html`/`json`/`redirect` helpers. */
export interface ResponseHelperOptions {
  status?: number;
  headers?: Record<string, string>;
}

/** The ASGI-like messages `asgi_send` writes. */
export type AsgiResponseMessage =
  | { type: "http.response.start"; status: number; headers: [string, string][] }
  | { type: "http.response.body"; body: Uint8Array; more_body?: boolean };

/** An ASGI send function. */
export type AsgiSend = (message: AsgiResponseMessage) => unknown;

const encoder = new TextEncoder();

/** The body length of each web Response {@link Response.toWebResponse} made with a body in memory. */
const heldLengths = new WeakMap<globalThis.Response, number>();

/**
 * The length of `response`'s body when it is held in memory and known without asking the response
 * (it was made by {@link Response.toWebResponse}), else null. Reading a web Response's `headers`
 * once it is made costs Deno its fast path for sending it (a hello-world answered a fifth fewer
 * requests a second): the access log asks here instead.
 */
export function heldBodyLength(response: globalThis.Response): number | null {
  return heldLengths.get(response) ?? null;
}

/** An HTTP response: body, status, extra headers, content type and cookies to set. */
export class Response {
  /** The body: text, bytes or a stream. */
  body: ResponseBody;
  /** HTTP status. */
  status: number;
  /** Extra headers; a `content-type` entry here overrides `content_type`. */
  headers: Record<string, string>;
  /** Content type, or null for none. */
  content_type: string | null;
  #setCookies: string[] = [];

  /** A response with `body`; see {@link ResponseOptions}. */
  constructor(body: ResponseBody = "", options: ResponseOptions = {}) {
    this.body = body;
    this.status = options.status ?? 200;
    this.headers = { ...(options.headers ?? {}) };
    this.content_type = options.content_type === undefined
      ? "text/plain; charset=utf-8"
      : options.content_type;
  }

  /** Plain text, `text/plain; charset=utf-8`. */
  static text(body: string, options: ResponseHelperOptions = {}): Response {
    return new Response(body, { ...options, content_type: "text/plain; charset=utf-8" });
  }

  /** HTML, `text/html; charset=utf-8`. */
  static html(body: string, options: ResponseHelperOptions = {}): Response {
    return new Response(body, { ...options, content_type: "text/html; charset=utf-8" });
  }

  /** JSON (bigint-exact, BLOBs as base64 objects), `application/json; charset=utf-8`. */
  static json(
    value: unknown,
    options: ResponseHelperOptions & { indent?: number } = {},
  ): Response {
    return new Response(jsonText(value, { indent: options.indent }), {
      status: options.status,
      headers: options.headers,
      content_type: "application/json; charset=utf-8",
    });
  }

  /**
   * A redirect to `url`: 302 unless `status` is given (e.g. 301). A leading run of `/` and `\\` is
   * collapsed to one `/`, so `//evil.example` cannot become a protocol-relative open redirect.
   */
  static redirect(url: string, options: ResponseHelperOptions = {}): Response {
    const location = String(url).replace(/^[/\\]{2,}/, "/");
    return new Response("", {
      status: options.status ?? 302,
      headers: { ...(options.headers ?? {}), Location: location },
    });
  }

  /** Wrap a web Response (e.g. from `asgi_wrapper` middleware) as a spec Response. */
  static fromWeb(res: globalThis.Response): Response {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (name !== "set-cookie" && name !== "content-type") headers[name] = value;
    });
    const out = new Response(res.body, {
      status: res.status,
      headers,
      content_type: res.headers.get("content-type"),
    });
    out.#setCookies.push(...res.headers.getSetCookie());
    return out;
  }

  /** Add a Set-Cookie header; calling it again adds another cookie. */
  set_cookie(name: string, value: string, options: CookieOptions = {}): void {
    this.#setCookies.push(serializeCookie(name, value, options));
  }

  /** The Set-Cookie header values added so far. */
  get set_cookie_headers(): string[] {
    return [...this.#setCookies];
  }

  /** Every header as `[name, value]` pairs, including content-type and Set-Cookie lines. */
  headerPairs(): [string, string][] {
    const pairs: [string, string][] = [];
    let hasContentType = false;
    for (const [name, value] of Object.entries(this.headers)) {
      if (name.toLowerCase() === "content-type") hasContentType = true;
      pairs.push([name, String(value)]);
    }
    if (!hasContentType && this.content_type) pairs.unshift(["content-type", this.content_type]);
    for (const cookie of this.#setCookies) pairs.push(["set-cookie", cookie]);
    return pairs;
  }

  /** Write this response through an ASGI send function: a start message then the body. */
  async asgi_send(send: AsgiSend): Promise<void> {
    await send({ type: "http.response.start", status: this.status, headers: this.headerPairs() });
    const body = this.body;
    if (body instanceof ReadableStream) {
      for await (const chunk of body) {
        await send({ type: "http.response.body", body: chunk, more_body: true });
      }
      await send({ type: "http.response.body", body: new Uint8Array() });
      return;
    }
    const bytes = typeof body === "string" ? encoder.encode(body) : body ?? new Uint8Array();
    await send({ type: "http.response.body", body: bytes });
  }

  /**
   * The equivalent web Response. Null-body statuses (204, 304) drop the body. `amend` may add
   * headers first (the pipeline's security headers), so they are given to the web Response in one
   * go.
   */
  toWebResponse(
    amend?: (headers: {
      has(name: string): boolean;
      get(name: string): string | null;
      set(name: string, value: string): void;
    }) => void,
  ): globalThis.Response {
    const headers = new HeaderList(this.headerPairs());
    amend?.(headers);
    const nullBody = this.status === 204 || this.status === 304 || this.status < 200;
    let body = nullBody ? null : this.body;
    // A body held in memory goes out with its length (what the access log reads, so it need not
    // count the bytes through a stream); text is encoded here, once.
    if (typeof body === "string") body = encoder.encode(body);
    if (body instanceof Uint8Array && !headers.has("content-length")) {
      headers.pairs.push(["content-length", String(body.byteLength)]);
    }
    const web = new globalThis.Response(body as BodyInit | null, {
      status: this.status,
      headers: headers.pairs,
    });
    if (body instanceof Uint8Array) heldLengths.set(web, body.byteLength);
    return web;
  }
}
