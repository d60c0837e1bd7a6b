import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import { Signer } from "../../src/auth/signer.ts";
import { bearer, signedIn } from "./_auth_helpers.ts";

Deno.test("/-/actor.json is null for anonymous visitors, as in the reference", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.get("/-/actor.json");
  assert.equal(response.status, 200);
  // 1.0 adds "ok": true to the spec era's {"actor": null}.
  assert.deepEqual(response.json(), { ok: true, ...example("47-actor.json").body as object });
});

Deno.test("/-/actor.json shows the actor of a signed ds_actor cookie", async () => {
  await using svc = shopService({ secret: "s" });
  const actor = { id: "alice", roles: ["staff"] };
  const response = await svc.client.get("/-/actor.json", { cookies: signedIn(svc, actor) });
  assert.deepEqual(response.json(), { ok: true, actor });
  const page = await svc.client.get("/-/actor", { cookies: signedIn(svc, actor) });
  assert.match(page.text, /&quot;alice&quot;|"alice"/);
});

Deno.test("/-/actor.json shows the actor of a signed API token", async () => {
  await using svc = shopService({ secret: "s" });
  const token = svc.create_token("bot");
  const response = await svc.client.get("/-/actor.json", { headers: bearer(token) });
  assert.deepEqual(response.json(), { ok: true, actor: { id: "bot", token: "dstok" } });
});

Deno.test("tampered, wrong-secret and expired cookies all count as anonymous", async () => {
  await using svc = shopService({ secret: "s" });
  const good = signedIn(svc, { id: "alice" }).ds_actor;
  const [payload, signature] = good.split(".");
  const forged = encodeActorCookie(new Signer("other"), { id: "alice" });
  const expired = encodeActorCookie(svc.signer, { id: "alice" }, {
    expire_after: 60,
    now: Math.floor(Date.now() / 1000) - 3600,
  });
  const tampered = `${payload.slice(0, -2)}xx.${signature}`;
  for (const cookie of [forged, expired, tampered, "garbage", `${payload}.`]) {
    const response = await svc.client.get("/-/actor.json", { cookies: { ds_actor: cookie } });
    assert.equal(response.status, 200, cookie);
    assert.deepEqual(response.json(), { ok: true, actor: null }, cookie);
  }
});

Deno.test("a cookie with an expiry in the future still signs the actor in", async () => {
  await using svc = shopService({ secret: "s" });
  const cookie = encodeActorCookie(svc.signer, { id: "alice" }, { expire_after: 3600 });
  const response = await svc.client.get("/-/actor.json", { cookies: { ds_actor: cookie } });
  assert.deepEqual(response.json(), { ok: true, actor: { id: "alice" } });
});

Deno.test("a bearer header that is not a dstok_ token leaves the request anonymous", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.get("/-/actor.json", { headers: bearer("something-else") });
  assert.equal(response.status, 200);
  assert.deepEqual(response.json(), { ok: true, actor: null });
});

Deno.test("the signed-in actor sees a logout control on HTML pages", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/", { cookies: signedIn(svc, { id: "alice" }) });
  assert.match(page.text, /alice/);
  assert.match(page.text, /-\/logout/);
  const anonymous = await svc.client.get("/");
  assert.doesNotMatch(anonymous.text, /-\/logout/);
});

const plugin = (name: string) => new URL(`../fixtures/plugins/${name}`, import.meta.url).href;

Deno.test("a plugin scheme: Authorization: Bearer <API_KEY> against the configured key", async () => {
  await using svc = shopService({
    secret: "s",
    plugins: [plugin("api_key_auth.ts")],
    metadata: {
      allow: { id: "reporting" },
      plugins: { "api-key-auth": { key: "k3y", actor: { id: "reporting" } } },
    },
  });
  const ok = await svc.client.get("/-/actor.json", { headers: bearer("k3y") });
  assert.deepEqual(ok.json(), { ok: true, actor: { id: "reporting" } });
  assert.equal((await svc.client.get("/.json", { headers: bearer("k3y") })).status, 200);

  const wrong = await svc.client.get("/.json", { headers: bearer("guess") });
  assert.equal(wrong.status, 403);
  // Built-in tokens keep working beside the plugin's scheme.
  const token = await svc.client.get("/-/actor.json", {
    headers: bearer(svc.create_token("reporting")),
  });
  assert.deepEqual(token.json(), { ok: true, actor: { id: "reporting", token: "dstok" } });
});

Deno.test("a plugin scheme: Basic auth challenges anonymous visitors with a 401", async () => {
  await using svc = shopService({
    secret: "s",
    plugins: [plugin("basic_auth.ts")],
    metadata: {
      allow: { id: "alice" },
      plugins: { "basic-auth": { users: { alice: "wonderland" }, realm: "Corner Shop" } },
    },
  });
  const basic = (credentials: string) => ({ authorization: `Basic ${btoa(credentials)}` });
  const challenge = await svc.client.get("/");
  assert.equal(challenge.status, 401);
  assert.equal(challenge.headers.get("www-authenticate"), 'Basic realm="Corner Shop"');

  const wrong = await svc.client.get("/", { headers: basic("alice:rabbit") });
  assert.equal(wrong.status, 401);

  const ok = await svc.client.get("/.json", { headers: basic("alice:wonderland") });
  assert.equal(ok.status, 200);
  const actor = await svc.client.get("/-/actor.json", { headers: basic("alice:wonderland") });
  assert.deepEqual(actor.json(), { ok: true, actor: { id: "alice", auth: "basic" } });
});

Deno.test("a forbidden hook leaves signed-in actors with the normal 403", async () => {
  await using svc = shopService({
    secret: "s",
    plugins: [plugin("basic_auth.ts")],
    metadata: { allow: { id: "alice" }, plugins: { "basic-auth": { users: {} } } },
  });
  const page = await svc.client.get("/.json", { cookies: signedIn(svc, { id: "bob" }) });
  assert.equal(page.status, 403);
  assert.equal(page.headers.get("www-authenticate"), null);
  assert.equal((page.json() as { ok: boolean }).ok, false);
});
