/**
 * Cookie attributes: the `ds_actor` cookie is HttpOnly and SameSite=Lax always, and Secure when
 * the site is served over HTTPS (directly or as declared by `force_https_urls`).
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";
import { signedIn, submitForm } from "../views/_auth_helpers.ts";

function actorCookie(headers: Headers): string {
  const cookie = headers.getSetCookie().find((header) => header.startsWith("ds_actor="));
  assert.ok(cookie, `no ds_actor cookie in ${JSON.stringify(headers.getSetCookie())}`);
  return cookie;
}

async function rootLogin(svc: Service, origin = ""): Promise<string> {
  const response = await svc.client.get(`${origin}/-/auth-token?token=${svc.rootToken!.value}`);
  assert.equal(response.status, 302);
  return actorCookie(response.headers);
}

Deno.test("the root login cookie is HttpOnly and SameSite=Lax, not Secure over plain HTTP", async () => {
  await using svc = shopService({ root: true });
  const cookie = await rootLogin(svc);
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=lax/);
  // Secure over plain HTTP would make a local `vitrine serve` login silently fail.
  assert.doesNotMatch(cookie, /Secure/);
});

Deno.test("the root login cookie is Secure when the request came over HTTPS", async () => {
  await using svc = shopService({ root: true });
  assert.match(await rootLogin(svc, "https://data.example.com"), /; HttpOnly;.*; Secure$/);
});

Deno.test("force_https_urls marks the actor cookies Secure behind a TLS-terminating proxy", async () => {
  await using svc = shopService({ root: true, settings: { force_https_urls: true } });
  assert.match(await rootLogin(svc), /; Secure$/);
  const cookies = signedIn(svc, { id: "alice" });
  const logout = await submitForm(svc, "/-/logout", {}, cookies);
  assert.equal(logout.status, 302);
  // The clearing cookie carries the same attributes, so the browser replaces the Secure one.
  const cleared = actorCookie(logout.headers);
  assert.match(cleared, /^ds_actor=; expires=Thu, 01 Jan 1970/);
  assert.match(cleared, /; HttpOnly; Max-Age=0; Path=\/; SameSite=lax; Secure$/);
});

Deno.test("flash-message and CSRF cookies are Secure when force_https_urls is on", async () => {
  const { shopService } = await import("../fixtures/shop.ts");
  await using svc = shopService({ settings: { force_https_urls: true } });
  const form = await svc.client.get("/shop/add_log_entry");
  const csrf = form.headers.getSetCookie().find((c) => c.startsWith("ds_csrftoken="));
  assert.ok(csrf && /;\s*Secure/i.test(csrf), csrf);
});
