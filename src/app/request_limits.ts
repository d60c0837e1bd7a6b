/**
 * Limits on what a request may be before any of it is parsed: the length of its URL (414) and
 * the bytes of its headers (431). The body limit (`max_post_body_bytes`, 413) is enforced as the
 * body is read (`Request.post_body`), the JSON nesting limit (`max_json_depth`, 400) where a body
 * is parsed as JSON (src/util/json_depth.ts).
 *
 * Requests refused here never reach the router: the answer is a short text, or a JSON error
 * body for `.json` URLs and `Accept: application/json`, with the usual security headers.
 *
 * @module
 */

import { HttpError } from "../http/errors.ts";

/** The limits, from the settings (0 = no limit). */
export interface RequestLimits {
  /** `max_url_bytes`: path plus query string. */
  maxUrlBytes: number;
  /** `max_header_bytes`: every header's name and value. */
  maxHeaderBytes: number;
}

/**
 * The error for a request over a limit, or null. `headerBytes` is the size of its headers when
 * the caller already counted them (`readHeaders`), saving another pass over them.
 */
export function requestLimitError(
  raw: globalThis.Request,
  limits: RequestLimits,
  headerBytes?: number,
): HttpError | null {
  if (limits.maxUrlBytes > 0) {
    // Everything after the origin (scheme://host) is the request target.
    const target = raw.url.length - raw.url.indexOf("/", raw.url.indexOf("//") + 2);
    if (target > limits.maxUrlBytes) {
      return new HttpError(
        414,
        `The URL is longer than this server accepts (${limits.maxUrlBytes} bytes, the ` +
          "max_url_bytes setting)",
      );
    }
  }
  if (limits.maxHeaderBytes > 0) {
    let bytes = headerBytes ?? 0;
    if (headerBytes === undefined) {
      for (const [name, value] of raw.headers) bytes += name.length + value.length + 4;
    }
    if (bytes > limits.maxHeaderBytes) {
      return new HttpError(
        431,
        `The request headers are larger than this server accepts (${limits.maxHeaderBytes} ` +
          "bytes, the max_header_bytes setting)",
      );
    }
  }
  return null;
}

/** The answer to a request refused before routing (too long, bad Host…). */
export function earlyErrorResponse(raw: globalThis.Request, error: HttpError): globalThis.Response {
  const accept = raw.headers.get("accept") ?? "";
  const path = raw.url.replace(/^[a-z]+:\/\/[^/]*/i, "").split("?")[0];
  const json = path.endsWith(".json") || /(^|,)\s*application\/json\s*(;|,|$)/.test(accept);
  const headers = new Headers(error.headers);
  let body: string;
  if (json) {
    headers.set("content-type", "application/json; charset=utf-8");
    body = JSON.stringify({
      ok: false,
      error: error.message,
      errors: [error.message],
      status: error.status,
      title: error.title,
    });
  } else {
    headers.set("content-type", "text/plain; charset=utf-8");
    body = `${error.status} ${error.message}\n`;
  }
  return new globalThis.Response(raw.method === "HEAD" ? null : body, {
    status: error.status,
    headers,
  });
}
