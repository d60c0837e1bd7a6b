/**
 * Headers every response leaves with, unless a view or plugin already set them:
 *
 * - `X-Content-Type-Options: nosniff` — a browser never guesses HTML or script out of a CSV, a
 *   JSON body or a downloaded file;
 * - `Referrer-Policy: strict-origin-when-cross-origin` — links to other sites do not carry query
 *   URLs (and the SQL in them);
 * - on HTML: `Content-Security-Policy` (src/http/csp.ts) — the full policy on pages Vitrine's
 *   templates rendered, `frame-ancestors` alone on HTML a plugin built some other way, whose
 *   scripts it cannot know — and `X-Frame-Options` for browsers that predate `frame-ancestors`.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { contentSecurityPolicy, usedCspNonce } from "../http/csp.ts";
import type { HeaderAccess } from "../http/header_list.ts";

/** The settings these headers follow. */
export interface SecurityHeaderSettings {
  /** `frame_ancestors`: who may show pages in a frame. */
  frameAncestors: string;
}

/**
 * Adds the headers to an outgoing response's `headers` (never replacing one already set).
 * `request` is null for a request refused before it was parsed.
 */
export function addSecurityHeaders(
  request: Request | null,
  headers: HeaderAccess,
  settings: SecurityHeaderSettings,
): void {
  const add = (name: string, value: string) => {
    if (!headers.has(name)) headers.set(name, value);
  };
  add("x-content-type-options", "nosniff");
  add("referrer-policy", "strict-origin-when-cross-origin");
  if (!(headers.get("content-type") ?? "").toLowerCase().startsWith("text/html")) return;
  const frameAncestors = settings.frameAncestors;
  add(
    "content-security-policy",
    request && usedCspNonce(request)
      ? contentSecurityPolicy(request, { frameAncestors })
      : `frame-ancestors ${frameAncestors}`,
  );
  const legacy = frameAncestors === "'self'"
    ? "SAMEORIGIN"
    : frameAncestors === "'none'"
    ? "DENY"
    : null;
  if (legacy) add("x-frame-options", legacy);
}
