import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { decodeMessages } from "../../src/auth/messages.ts";
import { formCsrfToken, signedIn, submitForm } from "./_auth_helpers.ts";

Deno.test("GET /-/logout shows who is signed in and a CSRF-protected form", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/logout", { cookies: signedIn(svc, { id: "alice" }) });
  assert.equal(page.status, 200);
  assert.match(page.text, /signed in as <strong>alice<\/strong>/);
  assert.match(page.text, /<form method="post" action="\/-\/logout">/);
  assert.equal(formCsrfToken(page.text), page.cookies.ds_csrftoken);
});

Deno.test("GET /-/logout for an anonymous visitor says so and offers no form", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/logout");
  assert.equal(page.status, 200);
  assert.match(page.text, /You are not signed in/);
  assert.doesNotMatch(page.text, /Log out<\/button>/);
});

Deno.test("POST /-/logout clears the actor cookie, flashes a message and redirects home", async () => {
  await using svc = shopService({ secret: "s" });
  const cookies = signedIn(svc, { id: "alice" });
  const response = await submitForm(svc, "/-/logout", {}, cookies);
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/");
  const cleared = response.headers.getSetCookie().find((c) => c.startsWith("ds_actor="));
  assert.ok(cleared);
  assert.match(cleared, /^ds_actor=; expires=Thu, 01 Jan 1970/);
  assert.match(cleared, /Max-Age=0/);
  assert.deepEqual(decodeMessages(svc.signer, response.cookies.ds_messages), [
    ["You are now logged out", svc.WARNING],
  ]);

  const home = await svc.client.get("/", {
    cookies: { ds_messages: response.cookies.ds_messages },
  });
  assert.match(home.text, /You are now logged out/);
});

Deno.test("POST /-/logout without the CSRF token is refused and keeps the actor signed in", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.post("/-/logout", {
    data: {},
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(response.status, 403);
  assert.match(response.text, /form-urlencoded POST field did not match cookie/);
  assert.equal(response.cookies.ds_actor, undefined);
});
