import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import { Signer } from "../../src/auth/signer.ts";
import { bearer, signedIn } from "./_auth_helpers.ts";

Deno.test("/-/actor.json is null for anonymous visitors, as in the reference", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const response = await svc.client.get("/-/actor.json");
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), example("47-actor.json").body);
  } finally {
    await svc.close();
  }
});

Deno.test("/-/actor.json shows the actor of a signed ds_actor cookie", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const actor = { id: "alice", roles: ["staff"] };
    const response = await svc.client.get("/-/actor.json", { cookies: signedIn(svc, actor) });
    assert.deepEqual(response.json(), { actor });
    const page = await svc.client.get("/-/actor", { cookies: signedIn(svc, actor) });
    assert.match(page.text, /&quot;alice&quot;|"alice"/);
  } finally {
    await svc.close();
  }
});

Deno.test("/-/actor.json shows the actor of a signed API token", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const token = svc.create_token("bot");
    const response = await svc.client.get("/-/actor.json", { headers: bearer(token) });
    assert.deepEqual(response.json(), { actor: { id: "bot", token: "dstok" } });
  } finally {
    await svc.close();
  }
});

Deno.test("tampered, wrong-secret and expired cookies all count as anonymous", async () => {
  const svc = shopService({ secret: "s" });
  try {
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
      assert.deepEqual(response.json(), { actor: null }, cookie);
    }
  } finally {
    await svc.close();
  }
});

Deno.test("a cookie with an expiry in the future still signs the actor in", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const cookie = encodeActorCookie(svc.signer, { id: "alice" }, { expire_after: 3600 });
    const response = await svc.client.get("/-/actor.json", { cookies: { ds_actor: cookie } });
    assert.deepEqual(response.json(), { actor: { id: "alice" } });
  } finally {
    await svc.close();
  }
});

Deno.test("a bearer header that is not a dstok_ token leaves the request anonymous", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const response = await svc.client.get("/-/actor.json", { headers: bearer("something-else") });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { actor: null });
  } finally {
    await svc.close();
  }
});

Deno.test("the signed-in actor sees a logout control on HTML pages", async () => {
  const svc = shopService({ secret: "s" });
  try {
    const page = await svc.client.get("/", { cookies: signedIn(svc, { id: "alice" }) });
    assert.match(page.text, /alice/);
    assert.match(page.text, /-\/logout/);
    const anonymous = await svc.client.get("/");
    assert.doesNotMatch(anonymous.text, /-\/logout/);
  } finally {
    await svc.close();
  }
});

const plugin = (name: string) => new URL(`../fixtures/plugins/${name}`, import.meta.url).href;

Deno.test("a plugin scheme: Authorization: Bearer <API_KEY> against the configured key", async () => {
  const svc = shopService({
    secret: "s",
    plugins: [plugin("api_key_auth.ts")],
    metadata: {
      allow: { id: "reporting" },
      plugins: { "api-key-auth": { key: "k3y", actor: { id: "reporting" } } },
    },
  });
  try {
    const ok = await svc.client.get("/-/actor.json", { headers: bearer("k3y") });
    assert.deepEqual(ok.json(), { actor: { id: "reporting" } });
    assert.equal((await svc.client.get("/.json", { headers: bearer("k3y") })).status, 200);

    const wrong = await svc.client.get("/.json", { headers: bearer("guess") });
    assert.equal(wrong.status, 403);
    // Built-in tokens keep working beside the plugin's scheme.
    const token = await svc.client.get("/-/actor.json", {
      headers: bearer(svc.create_token("reporting")),
    });
    assert.deepEqual(token.json(), { actor: { id: "reporting", token: "dstok" } });
  } finally {
    await svc.close();
  }
});

Deno.test("a plugin scheme: Basic auth challenges anonymous visitors with a 401", async () => {
  const svc = shopService({
    secret: "s",
    plugins: [plugin("basic_auth.ts")],
    metadata: {
      allow: { id: "alice" },
      plugins: { "basic-auth": { users: { alice: "wonderland" }, realm: "Corner Shop" } },
    },
  });
  const basic = (credentials: string) => ({ authorization: `Basic ${btoa(credentials)}` });
  try {
    const challenge = await svc.client.get("/");
    assert.equal(challenge.status, 401);
    assert.equal(challenge.headers.get("www-authenticate"), 'Basic realm="Corner Shop"');

    const wrong = await svc.client.get("/", { headers: basic("alice:rabbit") });
    assert.equal(wrong.status, 401);

    const ok = await svc.client.get("/.json", { headers: basic("alice:wonderland") });
    assert.equal(ok.status, 200);
    const actor = await svc.client.get("/-/actor.json", { headers: basic("alice:wonderland") });
    assert.deepEqual(actor.json(), { actor: { id: "alice", auth: "basic" } });
  } finally {
    await svc.close();
  }
});

Deno.test("a forbidden hook leaves signed-in actors with the normal 403", async () => {
  const svc = shopService({
    secret: "s",
    plugins: [plugin("basic_auth.ts")],
    metadata: { allow: { id: "alice" }, plugins: { "basic-auth": { users: {} } } },
  });
  try {
    const page = await svc.client.get("/.json", { cookies: signedIn(svc, { id: "bob" }) });
    assert.equal(page.status, 403);
    assert.equal(page.headers.get("www-authenticate"), null);
    assert.equal((page.json() as { ok: boolean }).ok, false);
  } finally {
    await svc.close();
  }
});
