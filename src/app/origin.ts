/**
 * Where the site is, for absolute URLs (`next_url`, `toggle_url`, `Link` headers, JSON `url`s):
 * never taken on trust from whoever sent the request.
 *
 * 1. The `public_url` setting, when set, is the answer for every request.
 * 2. Otherwise, with `--trust-proxy`, `X-Forwarded-Proto` and `X-Forwarded-Host` from the proxy
 *    in front (each checked like a Host header; of a list, the last value — the one the nearest
 *    proxy added — wins, since the ones before it may come from the visitor).
 * 3. Otherwise the `Host` header, which must look like a host name or address with an optional
 *    port (else 400 — Deno passes any bytes through, and `Host: a/b?c` would move the path into
 *    the query string); pages that embed it are then kept out of shared caches.
 *
 * @module
 */

import { BadRequest } from "../http/errors.ts";

/** The settings and options this decision follows. */
export interface OriginSettings {
  /** The `public_url` setting (an origin) or "". */
  publicUrl: string;
  /** `--trust-proxy`: honour `X-Forwarded-Proto` / `X-Forwarded-Host`. */
  trustProxy: boolean;
}

/** The scheme and host a request is answered as. */
export interface RequestOrigin {
  scheme: string;
  /** `host[:port]`, or null to keep the one in the request's URL (no Host header). */
  host: string | null;
  /** True when the host came from the visitor's own `Host` header. */
  fromHostHeader: boolean;
}

/** A DNS name, an IPv4 address or a bracketed IPv6 address, and an optional port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The last host {@link isValidHost} accepted: nearly every request repeats it. */
let lastValidHost = "";

/**
 * True for a syntactically valid `host[:port]` that a URL can be made of: the pattern lets
 * through ports over 65535 and dotted numbers that are no IPv4 address (`1.2.3.256`,
 * `1.2.3.4.5`), which the URL parser refuses.
 */
export function isValidHost(host: string): boolean {
  if (host === lastValidHost) return true;
  if (host.length > 255 || !HOST.test(host) || !URL.canParse(`http://${host}/`)) return false;
  lastValidHost = host;
  return true;
}

/**
 * Decides the origin of `raw` (see the module comment).
 *
 * @throws {BadRequest} for an invalid `Host` (or trusted `X-Forwarded-*`) header
 */
export function requestOrigin(
  raw: globalThis.Request,
  settings: OriginSettings,
  url?: URL,
): RequestOrigin {
  const hostHeader = raw.headers.get("host");
  // Checked even when public_url decides: the request's own URL is built from this header.
  if (hostHeader !== null && hostHeader !== "" && !isValidHost(hostHeader)) {
    throw new BadRequest("Invalid Host header", { title: "Bad Request" });
  }
  if (settings.publicUrl) {
    const url = new URL(settings.publicUrl);
    return { scheme: url.protocol.slice(0, -1), host: url.host, fromHostHeader: false };
  }
  const own = (url ?? new URL(raw.url)).protocol.slice(0, -1);
  if (settings.trustProxy) {
    const proto = lastValue(raw.headers.get("x-forwarded-proto"))?.toLowerCase() ?? null;
    const host = lastValue(raw.headers.get("x-forwarded-host"));
    if (proto !== null && proto !== "http" && proto !== "https") {
      throw new BadRequest("Invalid X-Forwarded-Proto header");
    }
    if (host !== null && !isValidHost(host)) {
      throw new BadRequest("Invalid X-Forwarded-Host header");
    }
    if (host !== null) return { scheme: proto ?? own, host, fromHostHeader: false };
    if (proto !== null) return { scheme: proto, host: hostHeader || null, fromHostHeader: true };
  }
  return { scheme: own, host: hostHeader || null, fromHostHeader: Boolean(hostHeader) };
}

/** `a, b` → `b` (the nearest proxy's value); null when absent or empty. */
function lastValue(header: string | null): string | null {
  const value = header?.split(",").at(-1)?.trim();
  return value ? value : null;
}
