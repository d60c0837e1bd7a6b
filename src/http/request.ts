/**
 * The spec's Request object: a thin, lazily computed view over a web `Request`.
 */
import { parseCookies } from "./cookies.ts";
import { BadRequest, HttpError, PayloadTooLarge, RequestTimeout } from "./errors.ts";
import { MultiParams } from "./multi_params.ts";
import type { Actor } from "./actor.ts";

/** The ASGI-like scope dictionary. */
export interface Scope {
  /** Always `http`. */
  type: "http";
  /** HTTP version, e.g. `1.1`. */
  http_version: string;
  /** Request method, upper case. */
  method: string;
  /** `http` or `https`. */
  scheme: string;
  /** Path without `base_url`, decoded. */
  path: string;
  /** Path as received, bytes. */
  raw_path: Uint8Array;
  /** Query string without `?`, bytes. */
  query_string: Uint8Array;
  /** Header pairs, names in lower case. */
  headers?: [string, string][];
  /** Values captured from the route. */
  url_route: { kwargs: Record<string, string> };
  /** Other keys plugins or wrappers add. */
  [key: string]: unknown;
}

/** Options of the Request constructor. */
export interface RequestOptions {
  url_vars?: Record<string, string>;
  actor?: Actor | null;
  /** Overrides the scheme of the URL (e.g. behind a TLS-terminating proxy). */
  scheme?: string;
  /** Overrides the host (`host[:port]`): the `public_url` setting or a trusted proxy's header. */
  host?: string | null;
  /** Upper limit for `post_body()`; null means none. */
  max_post_body_bytes?: number | null;
  /** Time `post_body()` may wait for the whole body, ms (`body_time_limit_ms`); 0 or null: none. */
  body_time_limit_ms?: number | null;
  /** Deepest JSON nesting a body may have (`max_json_depth`); 0 or null means no limit. */
  max_json_depth?: number | null;
  /** @internal The request's URL, already parsed (the pipeline parses it once). */
  parsed_url?: URL;
  /** @internal Its headers as {@link Request.headers} gives them, already read (`readHeaders`). */
  header_record?: Record<string, string>;
}

/**
 * A request's headers as {@link Request.headers} gives them (names lower case, repeated ones
 * joined), and their size as counted for `max_header_bytes`, in one pass.
 */
export function readHeaders(raw: globalThis.Request): {
  headers: Record<string, string>;
  bytes: number;
} {
  const headers: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of raw.headers) {
    // Own names only: `constructor` is a valid header name, and every object inherits one.
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
    bytes += name.length + value.length + 4;
  }
  return { headers, bytes };
}

/** Options of {@link Request.fake}. */
export interface FakeRequestOptions {
  method?: string;
  scheme?: string;
  url_vars?: Record<string, string>;
}

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

/** An incoming HTTP request, with the spec's property names. */
export class Request {
  /** The underlying web Request. */
  readonly raw: globalThis.Request;
  /** Named groups from the route's regular expression. */
  url_vars: Record<string, string>;
  /** The authenticated actor, or null. */
  actor: Actor | null;
  /** Limit applied by `post_body()`; null means unlimited. */
  max_post_body_bytes: number | null;
  /** Time `post_body()` waits for the whole body, ms; 0 means no limit. */
  body_time_limit_ms: number;
  /** Deepest JSON nesting accepted in a body (the views that parse JSON check it); 0 = none. */
  max_json_depth: number;
  #url: URL;
  #scheme: string;
  #host: string | null;
  #scope?: Scope;
  #headers?: Record<string, string>;
  #cookies?: Record<string, string>;
  #args?: MultiParams;
  #body?: Promise<Uint8Array>;

  /** Wraps a web `Request`. */
  constructor(webRequest: globalThis.Request, options: RequestOptions = {}) {
    this.raw = webRequest;
    this.#url = options.parsed_url ?? new URL(webRequest.url);
    this.#headers = options.header_record;
    this.#scheme = options.scheme ?? this.#url.protocol.slice(0, -1);
    this.#host = options.host ?? null;
    this.url_vars = options.url_vars ?? {};
    this.actor = options.actor ?? null;
    this.max_post_body_bytes = options.max_post_body_bytes ?? null;
    this.body_time_limit_ms = options.body_time_limit_ms ?? 0;
    this.max_json_depth = options.max_json_depth ?? 0;
  }

  /** A request for tests: `Request.fake("/db/table?_size=1", { method: "POST" })`. */
  static fake(pathWithQuery: string, options: FakeRequestOptions = {}): Request {
    const { method = "GET", scheme = "http", url_vars = {} } = options;
    const request = new Request(
      new globalThis.Request(`${scheme}://localhost${pathWithQuery}`, { method }),
      { url_vars, scheme },
    );
    const q = pathWithQuery.indexOf("?");
    const path = q === -1 ? pathWithQuery : pathWithQuery.slice(0, q);
    request.#scope = {
      http_version: "1.1",
      method,
      path,
      query_string: latin1(q === -1 ? "" : pathWithQuery.slice(q + 1)),
      raw_path: latin1(path),
      scheme,
      type: "http",
      url_route: { kwargs: url_vars },
    };
    return request;
  }

  /** The ASGI-like scope, built on first use. */
  get scope(): Scope {
    if (!this.#scope) {
      this.#scope = {
        type: "http",
        http_version: "1.1",
        method: this.method,
        scheme: this.scheme,
        path: safeDecodePath(this.path),
        raw_path: latin1(this.path),
        query_string: latin1(this.query_string),
        headers: Object.entries(this.headers),
        url_route: { kwargs: this.url_vars },
      };
    }
    return this.#scope;
  }

  /** HTTP method, uppercase. */
  get method(): string {
    return this.raw.method;
  }

  /** The full URL, with the effective scheme and host. */
  get url(): string {
    const protocol = this.#scheme + ":";
    if (protocol === this.#url.protocol && (!this.#host || this.#host === this.#url.host)) {
      return this.#url.href;
    }
    const url = new URL(this.#url.href);
    url.protocol = protocol;
    if (this.#host) url.host = this.#host;
    return url.href;
  }

  /** `http` or `https`. */
  get scheme(): string {
    return this.#scheme;
  }

  /** Header names lowercased; repeated headers joined with ", ". */
  get headers(): Record<string, string> {
    return this.#headers ??= readHeaders(this.raw).headers;
  }

  /** Cookies from the `Cookie` header. */
  get cookies(): Record<string, string> {
    return this.#cookies ??= parseCookies(this.headers["cookie"]);
  }

  /**
   * The host the site is answered as (see src/app/origin.ts), else the Host header, else the
   * URL's host, else `localhost`.
   */
  get host(): string {
    return this.#host || this.headers["host"] || this.#url.host || "localhost";
  }

  /** The path without the query string, still percent-encoded as received. */
  get path(): string {
    return this.#url.pathname;
  }

  /** Path plus `?query` when there is a query string. */
  get full_path(): string {
    const qs = this.query_string;
    return qs ? `${this.path}?${qs}` : this.path;
  }

  /** The query string without `?`. */
  get query_string(): string {
    return this.#url.search.slice(1);
  }

  /** Parsed query parameters. */
  get args(): MultiParams {
    return this.#args ??= new MultiParams(this.query_string);
  }

  /**
   * The raw body, read once and cached. Throws PayloadTooLarge (413) above `limit` (default: the
   * `max_post_body_bytes` property), and RequestTimeout (408) when the whole body has not
   * arrived within the `body_time_limit_ms` property.
   */
  post_body(limit: number | null = this.max_post_body_bytes): Promise<Uint8Array> {
    return this.#body ??= readBody(this.raw, limit, this.body_time_limit_ms);
  }

  /** A form-urlencoded body as an object of each field's first value. */
  async post_vars(): Promise<Record<string, string>> {
    const form = await this.post_multi();
    const vars: Record<string, string> = {};
    for (const key of form.keys()) vars[key] = form.get(key)!;
    return vars;
  }

  /** A form-urlencoded body with every value of repeated fields. */
  async post_multi(): Promise<MultiParams> {
    return new MultiParams(new TextDecoder().decode(await this.post_body()));
  }

  /** Shown by console.log / Deno.inspect. */
  [Symbol.for("Deno.customInspect")](): string {
    return `<Request ${this.method} ${this.url}>`;
  }
}

function safeDecodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

async function readBody(
  raw: globalThis.Request,
  limit: number | null,
  timeLimitMs: number,
): Promise<Uint8Array> {
  if (!raw.body) return new Uint8Array();
  const declared = Number(raw.headers.get("content-length") ?? NaN);
  if (limit !== null && declared > limit) throw new PayloadTooLarge();
  // A body trickling in (a byte a second) would hold this request, and its memory, for as long
  // as the client likes: past the deadline the read is abandoned.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = timeLimitMs > 0
    ? new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), timeLimitMs))
    : null;
  const timedOut = () =>
    new RequestTimeout(
      `The request body did not arrive within ${timeLimitMs} ms (the body_time_limit_ms setting)`,
    );
  // Deno fails the read when the client leaves halfway: that is the client's doing, not a 500.
  const cutShort = (error: unknown) =>
    error instanceof HttpError ? error : new BadRequest(
      "The request body was cut short: the connection closed before all of it arrived",
    );
  if (Number.isSafeInteger(declared)) {
    // The HTTP layer never delivers more than a declared length, so the body is read in one
    // native call: a stream reader waiting on a slow body holds about 160 KB in Deno 2.9, this
    // about 30 KB (bench/slow_connections.ts).
    const reading = raw.bytes();
    try {
      const body = late ? await Promise.race([reading, late]) : await reading;
      if (body === "late") {
        reading.catch(() => {}); // settles when the client finishes or leaves
        throw timedOut();
      }
      return body;
    } catch (error) {
      throw cutShort(error);
    } finally {
      clearTimeout(timer);
    }
  }
  const reader = raw.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const next = late ? await Promise.race([reader.read(), late]) : await reader.read();
      if (next === "late") throw timedOut();
      if (next.done) break;
      size += next.value.length;
      if (limit !== null && size > limit) throw new PayloadTooLarge();
      chunks.push(next.value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw cutShort(error);
  } finally {
    clearTimeout(timer);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}
