/**
 * `PageCache`: finished data pages of database files, kept by their ETag (`conditional.ts`) in a
 * least-recently-used map bounded in bytes (the `page_cache_mb` setting). The tag already names
 * everything a page is made from — what the file holds (an immutable file's hash, a mutable
 * file's `data_version`), the URL, the actor, the cookies, the `Accept` header and the
 * configuration served — so a request whose tag is kept gets the kept page without running its
 * view: no permission checks, no queries, no JSON writing. A hot page is then as cheap to send
 * as a `304`, also to clients that never revalidate (API clients, first visits).
 *
 * What is kept is narrower than what is tagged (see {@link isKeepable}): 200 answers whose body
 * is whole (not a stream: CSV and other exports are written as they are read), that set no cookie
 * and are not HTML (HTML pages carry a CSRF token bound to the visitor's cookie, and templates
 * may show the time). And nothing is kept while any plugin other than Vitrine's own is loaded: a
 * plugin's hooks may make a page depend on more than its tag (the client's address, the clock, a
 * permission service).
 *
 * A page is kept the second time it is asked for, not the first: most pages of a big table are
 * asked for once (a crawler, an API client walking rows), and keeping each of those cost more
 * than the view (copying it in, evicting it) while pushing the pages that are asked for often out
 * of the budget. The keys asked for once are remembered in a bounded set.
 *
 * A write to a mutable file changes its `data_version`, hence every tag of its pages: a kept page
 * is never served after a later write, and the old ones age out of the map.
 *
 * @module
 */

import { Response } from "../http/response.ts";
import type { Request } from "../http/request.ts";
import { keepCompressedCopies } from "../http/compressed_copies.ts";

/**
 * The key of `request`'s page: its ETag, and the scheme and host it is answered as, which the
 * tag leaves out (a `304` carries no body) but a JSON page's absolute URLs (`next_url`) are made
 * of: a request with a forged `Host` must not plant its links in other visitors' pages.
 */
export function pageCacheKey(request: Request, tag: string): string {
  return `${tag}\u0000${request.scheme}://${request.host}`;
}

/** A kept page: what the view answered, before the pipeline's own headers are added. */
interface KeptPage {
  body: Uint8Array;
  headers: Record<string, string>;
  content_type: string | null;
  bytes: number;
}

/** The biggest page kept, as a share of the budget: one big page must not empty the cache. */
const MAX_SHARE = 8;

/** Keys remembered as asked for once; the set starts over when full. */
const MAX_SEEN = 4096;

/** Bounded cache of finished pages, keyed by {@link pageCacheKey}. */
export class PageCache {
  /** Budget in bytes. */
  readonly maxBytes: number;
  #pages = new Map<string, KeptPage>();
  /** Keys missed before: true once missed twice (the page is then worth keeping). */
  #seen = new Map<string, boolean>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /** A cache of at most `maxBytes` (0 keeps nothing). */
  constructor(maxBytes: number) {
    this.maxBytes = Math.max(0, maxBytes);
  }

  /** A fresh copy of the page kept for `key` (the pipeline adds headers to it), or null. */
  get(key: string): Response | null {
    const page = this.#pages.get(key);
    if (!page) {
      this.#misses++;
      if (this.#seen.size >= MAX_SEEN && !this.#seen.has(key)) this.#seen.clear();
      this.#seen.set(key, this.#seen.has(key));
      return null;
    }
    // Moved to the end: the map's order is least recently used first.
    this.#pages.delete(key);
    this.#pages.set(key, page);
    this.#hits++;
    return new Response(page.body, {
      status: 200,
      headers: page.headers,
      content_type: page.content_type,
    });
  }

  /**
   * Keeps `response` for `key` when {@link isKeepable}, small enough, and its key was missed
   * twice by {@link get} (asked for before this request); true when kept.
   */
  put(key: string, response: Response): boolean {
    if (this.#seen.get(key) !== true || !isKeepable(response)) return false;
    this.#seen.delete(key);
    // Kept as bytes, encoded once; its compressed copies are kept with it (`compressed_copies.ts`).
    const body = typeof response.body === "string"
      ? new TextEncoder().encode(response.body)
      : response.body as Uint8Array;
    keepCompressedCopies(body);
    // A byte body counts the whole buffer it may be a view of: that is what keeping it holds.
    // Compressed copies, made when first asked for, add about a fifth per coding (uncounted).
    const bytes = 256 + body.buffer.byteLength + JSON.stringify(response.headers).length * 2;
    if (bytes > this.maxBytes / MAX_SHARE) return false;
    this.#remove(key);
    this.#pages.set(key, {
      body,
      headers: { ...response.headers },
      content_type: response.content_type,
      bytes,
    });
    this.#bytes += bytes;
    for (const [oldest] of this.#pages) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest);
    }
    return true;
  }

  /** Pages kept, bytes they take, and how many requests were answered from them. */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return {
      entries: this.#pages.size,
      bytes: this.#bytes,
      hits: this.#hits,
      misses: this.#misses,
    };
  }

  #remove(key: string): void {
    const page = this.#pages.get(key);
    if (!page) return;
    this.#pages.delete(key);
    this.#bytes -= page.bytes;
  }
}

/** A 200 with a whole body, no cookie set, and not HTML (see the module comment). */
export function isKeepable(response: Response): boolean {
  if (response.status !== 200) return false;
  if (typeof response.body !== "string" && !(response.body instanceof Uint8Array)) return false;
  if (response.set_cookie_headers.length > 0) return false;
  if (Object.keys(response.headers).some((name) => name.toLowerCase() === "set-cookie")) {
    return false;
  }
  const type = (response.headers["content-type"] ?? response.content_type ?? "").toLowerCase();
  return !type.startsWith("text/html");
}
