/**
 * Step 6 of the request lifecycle: unsafe requests must pass the CSRF check of `csrf.ts` unless a
 * `skip_csrf` hook exempts them.
 *
 * @module
 */

import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Forbidden } from "../http/errors.ts";
import { CSRF_FIELD, csrfCheck } from "../auth/csrf.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Throws Forbidden (403, the spec's message) when `request` fails the CSRF check.
 *
 * @throws {Forbidden}
 */
export async function enforceCsrf(svc: AppHost, request: Request): Promise<void> {
  if (SAFE_METHODS.has(request.method)) return;
  const answers = await svc.hooks.call("skip_csrf", { scope: request.scope, request });
  const skip = answers.some((answer) => answer === true);
  const error = csrfCheck({
    method: request.method,
    headers: request.headers,
    cookies: request.cookies,
    formToken: skip ? null : await formToken(request),
    skip,
    signer: svc.signer,
  });
  if (error) throw new Forbidden(error, { title: "CSRF check failed" });
}

// Only form-urlencoded bodies carry the field; the body is cached, so the view can read it again.
async function formToken(request: Request): Promise<string | null> {
  const contentType = request.headers["content-type"] ?? "";
  if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  if (Object.keys(request.cookies).length === 0) return null;
  return (await request.post_vars())[CSRF_FIELD] ?? null;
}
