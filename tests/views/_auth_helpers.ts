/** Shared helpers for the authentication and permission tests: sign-in cookies, CSRF'd POSTs. */
import type { Actor, Service } from "../../src/service.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { ClientResponse } from "../../src/http/client.ts";

/** Cookies that sign `actor` in, as the login flow would set them. */
export function signedIn(svc: Service, actor: Actor): Record<string, string> {
  return { ds_actor: encodeActorCookie(svc.signer, actor) };
}

/** The `Authorization` header for a bearer token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The hidden `csrftoken` field of the first form on an HTML page. */
export function formCsrfToken(html: string): string {
  const match = /name="csrftoken" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("No csrftoken field on the page");
  return match[1];
}

/**
 * Loads `path` as a browser would (keeping the CSRF cookie it sets), then submits its form with
 * `data`, the page's `csrftoken` and the same cookies.
 */
export async function submitForm(
  svc: Service,
  path: string,
  data: Record<string, string>,
  cookies: Record<string, string> = {},
  postPath: string = path,
): Promise<ClientResponse> {
  const page = await svc.client.get(path, { cookies });
  if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: ${page.text}`);
  const jar = { ...cookies, ...page.cookies };
  return await svc.client.post(postPath, {
    data: { ...data, csrftoken: formCsrfToken(page.text) },
    cookies: jar,
  });
}
