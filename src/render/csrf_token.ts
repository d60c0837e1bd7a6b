/** The `csrftoken()` template function: reuses the client's valid cookie or issues a new one. */
import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { requestState } from "../http/request_state.ts";
import { CSRF_COOKIE, newCsrfToken, unsignCsrfToken } from "../auth/csrf.ts";

/** The signed CSRF token for this request's forms (the handler sets the cookie if new). */
export function csrfTokenFor(svc: RenderHost, request: Request): string {
  const state = requestState(request);
  if (state.csrfToken) return state.csrfToken;
  const existing = request.cookies[CSRF_COOKIE];
  if (existing && unsignCsrfToken(svc.signer, existing) !== null) {
    state.cookieCsrfToken = existing;
    state.csrfToken = existing;
  } else {
    state.csrfToken = newCsrfToken(svc.signer);
  }
  return state.csrfToken;
}
