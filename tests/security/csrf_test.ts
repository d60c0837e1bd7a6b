/**
 * Every built-in form that POSTs — logout, create-token, messages, a writable canned query and the
 * permissions check — embeds the CSRF token, refuses a POST without it, and refuses a cross-site
 * browser POST even with it.
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";
import { CSRF_CROSS_SITE, CSRF_MISMATCH } from "../../src/auth/csrf.ts";
import { formCsrfToken, signedIn } from "../views/_auth_helpers.ts";

const FORMS: { path: string; data: Record<string, string>; ok: number }[] = [
  { path: "/-/logout", data: {}, ok: 302 },
  { path: "/-/create-token", data: {}, ok: 200 },
  { path: "/-/messages", data: { message: "hello" }, ok: 302 },
  { path: "/shop/add_log_entry", data: { message: "hello" }, ok: 302 },
  { path: "/-/permissions", data: { actor: "null", permission: "view-instance" }, ok: 200 },
];

function adminService(): Service {
  return shopService({
    secret: "s",
    metadata: { ...SHOP_METADATA, permissions: { "permissions-debug": { id: "admin" } } },
  });
}

/** The page's form token and the cookies a browser would hold after loading it. */
async function loadForm(svc: Service, path: string, cookies: Record<string, string>) {
  const page = await svc.client.get(path, { cookies });
  assert.equal(page.status, 200, `GET ${path}`);
  return { token: formCsrfToken(page.text), jar: { ...cookies, ...page.cookies } };
}

Deno.test("every built-in POST form refuses a request without the CSRF token", async () => {
  await using svc = adminService();
  for (const { path, data } of FORMS) {
    const { jar } = await loadForm(svc, path, signedIn(svc, { id: "admin" }));
    const forged = await svc.client.post(path, {
      data,
      cookies: jar,
      headers: { accept: "application/json" },
    });
    assert.equal(forged.status, 403, path);
    assert.equal(forged.json().error, CSRF_MISMATCH, path);
  }
});

Deno.test("every built-in POST form works with its token and refuses it cross-site", async () => {
  await using svc = adminService();
  for (const { path, data, ok } of FORMS) {
    const { token, jar } = await loadForm(svc, path, signedIn(svc, { id: "admin" }));
    const form = { ...data, csrftoken: token };
    const crossSite = await svc.client.post(path, {
      data: form,
      cookies: jar,
      headers: { "sec-fetch-site": "cross-site", accept: "application/json" },
    });
    assert.equal(crossSite.status, 403, path);
    assert.equal(crossSite.json().error, CSRF_CROSS_SITE, path);
    const sameSite = await svc.client.post(path, {
      data: form,
      cookies: jar,
      headers: { "sec-fetch-site": "same-origin" },
    });
    assert.equal(sameSite.status, ok, `${path}: ${sameSite.text.slice(0, 200)}`);
  }
});

Deno.test("a cross-site POST cannot skip the token by adding a bearer or JSON header", async () => {
  await using svc = adminService();
  const cookies = signedIn(svc, { id: "admin" });
  const bearer = await svc.client.post("/-/logout", {
    data: {},
    cookies,
    headers: { "sec-fetch-site": "cross-site", authorization: "Bearer not-a-token" },
  });
  assert.equal(bearer.status, 403);
  const json = await svc.client.post("/shop/add_log_entry", {
    json: { message: "hi" },
    cookies,
    headers: { "sec-fetch-site": "cross-site" },
  });
  assert.equal(json.status, 403);
  // The same JSON request from the site itself (or a script without a browser) still works.
  const sameSite = await svc.client.post("/shop/add_log_entry", {
    json: { message: "hi" },
    cookies,
    headers: { "sec-fetch-site": "same-origin", accept: "application/json" },
  });
  assert.equal(sameSite.status, 200);
});
