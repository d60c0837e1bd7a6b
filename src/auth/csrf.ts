/**
 * CSRF protection by double-submit token (SPEC "Authentication" 7, API-DETAILS §0 and §12): the
 * `ds_csrftoken` cookie must match the `csrftoken` form field or the `x-csrftoken` header.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { constantTimeEqual } from "./constant_time.ts";
import type { Signer } from "./signer.ts";

/** The cookie that holds the token. */
export const CSRF_COOKIE = "ds_csrftoken";
/** The form field and (lower-case) header that carry the token back. */
export const CSRF_FIELD = "csrftoken";
const CSRF_HEADER = "x-csrftoken";
/** The spec's error text for a missing or mismatched token. */
export const CSRF_MISMATCH = "form-urlencoded POST field did not match cookie";
/** Error text for an unsafe request a browser marked as cross-site. */
export const CSRF_CROSS_SITE = "Cross-site POST requests are not allowed";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Body types no HTML form can send, and that a cross-site script can only send after a CORS
 * preflight: the JSON write API's, and the CSV and TSV parts of a browser upload.
 */
const UNFORMABLE_TYPES = new Set(["application/json", "text/csv", "text/tab-separated-values"]);

/** A fresh signed token, the value of the `ds_csrftoken` cookie and of `csrftoken()`. */
export function newCsrfToken(signer: Signer): string {
  return signer.sign(randomBytes(16).toString("hex"), "csrftoken");
}

/** The random value inside a signed token, or null when the signature does not verify. */
export function unsignCsrfToken(signer: Signer, token: string): string | null {
  try {
    const value = signer.unsign(token, "csrftoken");
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** What {@link csrfCheck} looks at. */
export interface CsrfCheckInput {
  method: string;
  headers: Headers | Record<string, string>;
  cookies: Record<string, string>;
  /** The `csrftoken` field of a form-urlencoded body, if any. */
  formToken?: string | null;
  /** True when a `skip_csrf` hook exempted the request. */
  skip?: boolean;
  signer: Signer;
}

/**
 * Null when the request may proceed, else the error message for a 403.
 *
 * Safe methods always pass. Unsafe ones pass when `skip` is set or when they carry no cookies (no
 * ambient credentials to abuse). A browser's `Sec-Fetch-Site: cross-site` is refused next, before
 * the remaining exemptions: a cross-site page must not ride the visitor's cookies just by adding
 * an arbitrary `Authorization: Bearer` header or a JSON content type. Same-site requests with a
 * bearer header or a JSON, CSV or TSV body (which a cross-site form cannot send) pass; everything else needs
 * the token from the form field or header to match the cookie's, both carrying our signature.
 */
export function csrfCheck(input: CsrfCheckInput): string | null {
  if (SAFE_METHODS.has(input.method.toUpperCase()) || input.skip) return null;
  const header = (name: string) => headerValue(input.headers, name);
  if (Object.keys(input.cookies).length === 0) return null;
  if ((header("sec-fetch-site") ?? "").toLowerCase() === "cross-site") return CSRF_CROSS_SITE;
  if (/^bearer\s/i.test(header("authorization") ?? "")) return null;
  const contentType = (header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (UNFORMABLE_TYPES.has(contentType)) return null;

  const cookieToken = input.cookies[CSRF_COOKIE];
  const sentToken = input.formToken || header(CSRF_HEADER);
  if (!cookieToken || !sentToken) return CSRF_MISMATCH;
  const cookieValue = unsignCsrfToken(input.signer, cookieToken);
  const sentValue = unsignCsrfToken(input.signer, sentToken);
  if (cookieValue === null || sentValue === null) return CSRF_MISMATCH;
  return constantTimeEqual(cookieValue, sentValue) ? null : CSRF_MISMATCH;
}

function headerValue(headers: Headers | Record<string, string>, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return null;
}
