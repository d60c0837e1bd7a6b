/**
 * `svc.client`: an in-process HTTP client that sends requests straight to the service's handler
 * (no socket), honouring `base_url`.
 */
import { parseSetCookie } from "./cookies.ts";
import { PrefixedUrl } from "./urls.ts";

/** A fetch-style handler: what `Deno.serve` and `svc.client` call, e.g. `svc.handler()`. */
export type FetchHandler = (
  request: globalThis.Request,
  info?: Deno.ServeHandlerInfo,
) => Promise<globalThis.Response>;

/** Options for one client request. */
export interface ClientRequestOptions {
  /** Form fields, sent as `application/x-www-form-urlencoded`. */
  data?: Record<string, string | number | boolean | readonly string[]>;
  /** A value sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** A raw body. */
  body?: BodyInit | null;
  /** Request headers. */
  headers?: Record<string, string> | Headers;
  /** Sent as a `Cookie` header. */
  cookies?: Record<string, string>;
  /** Follow 301/302/303/307/308 responses (default false). */
  follow_redirects?: boolean;
}

/** What every client call resolves to: the response with its body already read. */
export class ClientResponse {
  /** A response with its body already read as text. */
  constructor(
    readonly status: number,
    readonly headers: Headers,
    /** The body bytes. */
    readonly content: Uint8Array,
    /** The URL that produced this response (after redirects). */
    readonly url: string,
  ) {}

  /** Alias of `status` (httpx's name, used by ported plugin tests). */
  get status_code(): number {
    return this.status;
  }

  /** The body decoded as UTF-8. */
  get text(): string {
    return new TextDecoder().decode(this.content);
  }

  /** The body parsed as JSON (typed by the caller, `any` by default, as JSON from a test is). */
  // deno-lint-ignore no-explicit-any
  json<T = any>(): T {
    return JSON.parse(this.text) as T;
  }

  /** Cookies set by the response's Set-Cookie headers. */
  get cookies(): Record<string, string> {
    const cookies: Record<string, string> = {};
    for (const header of this.headers.getSetCookie()) {
      const pair = parseSetCookie(header);
      if (pair) cookies[pair[0]] = pair[1];
    }
    return cookies;
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** Sends requests to a handler as if they came over HTTP. */
export class Client {
  #handler: FetchHandler;
  #baseUrl: () => string;

  /** A client sending requests to `fetchHandler`, under `baseUrl()` when given. */
  constructor(fetchHandler: FetchHandler, options: { baseUrl?: () => string } = {}) {
    this.#handler = fetchHandler;
    this.#baseUrl = options.baseUrl ?? (() => "/");
  }

  /** GET `path`. */
  get(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("GET", path, options);
  }
  /** POST `path`; use `data` for form fields or `json` for a JSON body. */
  post(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("POST", path, options);
  }
  /** PUT `path`. */
  put(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("PUT", path, options);
  }
  /** PATCH `path`. */
  patch(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("PATCH", path, options);
  }
  /** DELETE `path`. */
  delete(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("DELETE", path, options);
  }
  /** OPTIONS `path`. */
  options(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("OPTIONS", path, options);
  }
  /** HEAD `path`. */
  head(path: string | PrefixedUrl, options?: ClientRequestOptions): Promise<ClientResponse> {
    return this.request("HEAD", path, options);
  }

  /** Send `method` to `path` (prefixed with base_url unless it already is). */
  async request(
    method: string,
    path: string | PrefixedUrl,
    options: ClientRequestOptions = {},
  ): Promise<ClientResponse> {
    let url = this.#absolute(path);
    let request = buildRequest(method.toUpperCase(), url, options);
    for (let hops = 0;; hops++) {
      const response = await this.#handler(request);
      const location = response.headers.get("location");
      if (!options.follow_redirects || !REDIRECT_STATUSES.has(response.status) || !location) {
        // Like a socket client: a HEAD response never carries a body, whatever the handler sent.
        const isHead = request.method === "HEAD";
        if (isHead) await response.body?.cancel();
        const content = isHead ? new Uint8Array() : new Uint8Array(await response.arrayBuffer());
        return new ClientResponse(response.status, response.headers, content, url);
      }
      await response.body?.cancel();
      if (hops >= MAX_REDIRECTS) throw new Error(`Cannot follow redirects: more than ${hops}`);
      url = new URL(location, url).href;
      const keepMethod = response.status === 307 || response.status === 308;
      request = keepMethod
        ? buildRequest(method.toUpperCase(), url, options)
        : buildRequest("GET", url, { headers: options.headers, cookies: options.cookies });
    }
  }

  #absolute(path: string | PrefixedUrl): string {
    const text = String(path);
    if (/^https?:\/\//.test(text)) return text;
    const base = this.#baseUrl() || "/";
    const alreadyPrefixed = path instanceof PrefixedUrl || base === "/" ||
      text.startsWith(base) || text === base.replace(/\/$/, "");
    const prefixed = alreadyPrefixed ? text : base.replace(/\/?$/, "/") + text.replace(/^\//, "");
    return "http://localhost" + (prefixed.startsWith("/") ? prefixed : "/" + prefixed);
  }
}

function buildRequest(
  method: string,
  url: string,
  options: ClientRequestOptions,
): globalThis.Request {
  const headers = new Headers(options.headers);
  let body: BodyInit | null = options.body ?? null;
  if (options.data !== undefined) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(options.data)) {
      if (Array.isArray(value)) { for (const v of value) form.append(key, String(v)); }
      else form.append(key, String(value));
    }
    body = form.toString();
    if (!headers.has("content-type")) {
      headers.set("content-type", "application/x-www-form-urlencoded");
    }
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  if (options.cookies && Object.keys(options.cookies).length) {
    const cookie = Object.entries(options.cookies).map(([k, v]) => `${k}=${v}`).join("; ");
    headers.set("cookie", headers.has("cookie") ? `${headers.get("cookie")}; ${cookie}` : cookie);
  }
  const canHaveBody = method !== "GET" && method !== "HEAD";
  return new globalThis.Request(url, { method, headers, body: canHaveBody ? body : null });
}
