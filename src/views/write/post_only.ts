/**
 * What a POST-only endpoint (the write API, `/-/execute-write`, a revert) answers a GET. Its
 * clients send JSON and get a JSON 405 naming the methods in `Allow`. Someone who pasted the
 * address into a browser gets the same 405 as a page that says what the address is for and
 * links the page where that is done in the browser.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { prefersJson } from "../../http/negotiation.ts";
import { tilde_decode } from "../../util/tilde.ts";

/** What an endpoint does ("inserts rows") and the page that does it in a browser. */
export interface BrowserPage {
  /** Completes "This address is the write API's endpoint that …". */
  does: string;
  /** Completes "To do it in the browser, go to …:" (the link follows). */
  where: string;
  /** The page's path, without the base URL. */
  path: string;
}

/** How an endpoint finds its browser page from the request's path (without the base URL). */
export type BrowserPageOf = (request: Request) => BrowserPage;

/** The page an endpoint's path hangs under: `/shop/log/-/insert` → `/shop/log`. */
export function pageAbove(request: Request): string {
  return request.path.replace(/\/-\/[^/]+$/, "") || "/";
}

/** The database an endpoint's URL names, decoded. */
export function databaseOf(request: Request): string {
  return tilde_decode(request.url_vars.database ?? "");
}

/** True when a browser asked: `text/html` accepted, and preferred to JSON. */
function fromBrowser(request: Request): boolean {
  const accept = request.headers["accept"] ?? "";
  return /text\/html/i.test(accept) && !prefersJson(accept);
}

/**
 * The 405 for a request that is not a POST (or the CORS preflight `OPTIONS` the caller answers):
 * JSON for API clients, a page linking `page` for a browser.
 */
export function notPosted(
  svc: ViewHost,
  request: Request,
  page: BrowserPageOf,
  allowed: string[],
): MethodNotAllowed {
  if (!fromBrowser(request) || (request.method !== "GET" && request.method !== "HEAD")) {
    request.url_vars = { ...request.url_vars, format: "json" };
    return new MethodNotAllowed("Method not allowed", { allowed });
  }
  const { does, where, path } = page(request);
  const href = String(svc.urls.path(path));
  return new MethodNotAllowed(
    `This address is not a page: it is the write API's endpoint that ${does}, and takes ` +
      `${allowed.filter((method) => method !== "OPTIONS").join(" or ")} requests only.`,
    {
      allowed,
      title: "Method not allowed",
      hint: { text: `To do it in the browser, go to ${where}:`, href },
    },
  );
}
