/** Which representation a request asks for. */
import type { Request } from "./request.ts";

/** True for `.json` URLs and for requests whose `Accept` header prefers JSON. */
export function wantsJson(request: Request): boolean {
  if (request.url_vars?.format === "json") return true;
  if (request.path.endsWith(".json")) return true;
  return prefersJson(request.headers["accept"]);
}

/**
 * True when an `Accept` header asks for `application/json` with a quality above zero and no lower
 * than `text/html`'s: `application/json` and `application/json, text/plain` do;
 * `text/html, application/json;q=0.1`, `application/json;q=0` and a browser's usual header (HTML
 * first, then any type at q=0.8) do not. Media types are compared without regard to case.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept || !/json/i.test(accept)) return false;
  let json = 0;
  let html = 0;
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";");
    const name = type.trim().toLowerCase();
    if (name === "application/json") json = Math.max(json, quality(params));
    else if (name === "text/html") html = Math.max(html, quality(params));
  }
  return json > 0 && json >= html;
}

/** The `q=` of a media range's parameters (1 when absent or unreadable, as RFC 9110 defaults). */
function quality(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split("=").map((part) => part.trim());
    if (name.toLowerCase() !== "q") continue;
    const q = Number(value);
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 1;
  }
  return 1;
}

/** True when the request body is JSON: its errors should be JSON too (API-DETAILS §7). */
export function sendsJson(request: Request): boolean {
  const contentType = request.headers["content-type"] ?? "";
  return contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
