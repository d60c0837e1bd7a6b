/**
 * Per-request bookkeeping the pipeline needs but the spec's Request does not expose:
 * flash messages to write, the CSRF token issued while rendering, trace collection.
 */
import type { Request } from "./request.ts";

/** Pipeline-private state attached to one request. */
export interface RequestState {
  /** Messages added during this request, written to `ds_messages` on the way out. */
  messagesToSet: [string, number][];
  /** True once a page displayed the incoming messages, so the cookie is cleared. */
  messagesShown: boolean;
  /** The (signed) CSRF token handed to a template; sent as `ds_csrftoken` if it is new. */
  csrfToken: string | null;
  /** The token the client's `ds_csrftoken` cookie already holds, when its signature verified. */
  cookieCsrfToken: string | null;
  /** True when the matched route has a `.json` twin (it takes a format suffix). */
  hasJsonTwin: boolean;
  /** The path the router saw: `request.path` without the `base_url` prefix. */
  routePath: string | null;
  /** The request's host came from its own `Host` header (no `public_url`, no trusted proxy). */
  hostFromHeader: boolean;
  /** An absolute URL built from that header went into the response: no shared caching. */
  embedsHost: boolean;
  /** The query string as `[key, value]` pairs, parsed on first use ({@link queryPairs}). */
  queryPairs: [string, string][] | null;
}

const states = new WeakMap<Request, RequestState>();

/** The state of `request`, created on first use. */
export function requestState(request: Request): RequestState {
  let state = states.get(request);
  if (!state) {
    state = {
      messagesToSet: [],
      messagesShown: false,
      csrfToken: null,
      cookieCsrfToken: null,
      hasJsonTwin: false,
      routePath: null,
      hostFromHeader: false,
      embedsHost: false,
      queryPairs: null,
    };
    states.set(request, state);
  }
  return state;
}

/**
 * The request's path inside the site: `request.path` keeps the `base_url` prefix (as links and
 * plugins expect), routing and custom pages work on the path without it.
 */
export function routePath(request: Request): string {
  return requestState(request).routePath ?? request.path;
}

/**
 * The request's query string as `[key, value]` pairs in their order, parsed once: a table page
 * builds a dozen links from it. Shared by every caller — copy before changing it.
 */
export function queryPairs(request: Request): [string, string][] {
  const state = requestState(request);
  return state.queryPairs ??= [...new URLSearchParams(request.query_string)];
}
