import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { createToken } from "../../src/auth/tokens.ts";
import { Signer } from "../../src/auth/signer.ts";
import { bearer } from "./_auth_helpers.ts";

const hoursAgo = (hours: number) => Math.floor(Date.now() / 1000) - hours * 3600;

/** The table names the index JSON lists for `shop`. */
function shopTables(body: unknown): string[] {
  const shop = (body as { databases: { name: string; tables_and_views_truncated: unknown[] }[] })
    .databases.find((d) => d.name === "shop")!;
  return shop.tables_and_views_truncated.map((t) => (t as { name: string }).name).sort();
}

Deno.test("a valid token acts as its actor on JSON requests", async () => {
  await using svc = shopService({ secret: "s", metadata: { allow: { id: "bot" } } });
  const anonymous = await svc.client.get("/.json");
  assert.equal(anonymous.status, 403);
  assert.equal((anonymous.json() as { ok: boolean }).ok, false);
  const withToken = await svc.client.get("/.json", { headers: bearer(svc.create_token("bot")) });
  assert.equal(withToken.status, 200);
  const listed = (withToken.json() as { databases: { name: string }[] }).databases;
  assert.deepEqual(listed.map((d) => d.name), ["shop"]);
  const otherActor = await svc.client.get("/.json", {
    headers: bearer(svc.create_token("eve")),
  });
  assert.equal(otherActor.status, 403);
});

Deno.test("a token restricted to one table only sees that table", async () => {
  await using svc = shopService({ secret: "s" });
  const token = svc.create_token("bot", {
    restrict_resource: { shop: { products: ["view-table"] } },
  });
  const index = await svc.client.get("/.json", { headers: bearer(token) });
  assert.equal(index.status, 200);
  assert.deepEqual(shopTables(index.json()), ["products"]);
  const unrestricted = await svc.client.get("/.json", {
    headers: bearer(svc.create_token("bot")),
  });
  assert.ok(shopTables(unrestricted.json()).length > 1);

  const actor = (await svc.client.get("/-/actor.json", { headers: bearer(token) })
    .then((r) => r.json()) as { actor: Record<string, unknown> }).actor;
  assert.deepEqual(actor._r, { r: { shop: { products: ["vt"] } } });
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "products"]), true);
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "orders"]), false);
  assert.equal(await svc.permission_allowed(actor, "execute-sql", "shop"), false);
  assert.equal(await svc.permission_allowed(actor, "view-database", "shop"), true);
  assert.equal(await svc.permission_allowed(actor, "view-instance"), true);
});

Deno.test("restrictions never grant what the actor could not do anyway", async () => {
  const metadata = { databases: { shop: { tables: { orders: { allow: { id: "manager" } } } } } };
  await using svc = shopService({ secret: "s", metadata });
  const token = svc.create_token("bot", { restrict_all: ["view-table", "insert-row"] });
  const actor = (await svc.client.get("/-/actor.json", { headers: bearer(token) })
    .then((r) => r.json()) as { actor: Record<string, unknown> }).actor;
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "orders"]), false);
  assert.equal(await svc.permission_allowed(actor, "insert-row", ["shop", "products"]), false);
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "products"]), true);
});

Deno.test("restrictions written with full action names work like abbreviations", async () => {
  await using svc = shopService({ secret: "s" });
  const token = "dstok_" +
    svc.sign({ a: "bot", t: hoursAgo(0), _r: { d: { shop: ["execute-sql"] } } }, "token");
  const actor = (await svc.client.get("/-/actor.json", { headers: bearer(token) })
    .then((r) => r.json()) as { actor: Record<string, unknown> }).actor;
  assert.equal(await svc.permission_allowed(actor, "execute-sql", "shop"), true);
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "products"]), false);
});

Deno.test("expired, tampered and wrong-secret tokens get a 401 with WWW-Authenticate", async () => {
  await using svc = shopService({ secret: "s" });
  const expired = createToken(svc.signer, "bot", { expires_after: 60, now: hoursAgo(1) });
  const good = svc.create_token("bot");
  const tampered = good.slice(0, -3) + (good.endsWith("AAA") ? "BBB" : "AAA");
  const foreign = createToken(new Signer("other"), "bot");
  for (const token of [expired, tampered, foreign, "dstok_nonsense"]) {
    for (const path of ["/.json", "/-/actor.json"]) {
      const response = await svc.client.get(path, { headers: bearer(token) });
      assert.equal(response.status, 401, `${path} ${token}`);
      assert.equal(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
      const body = response.json() as { ok: boolean; status: number };
      assert.equal(body.ok, false);
      assert.equal(body.status, 401);
    }
  }
  const live = createToken(svc.signer, "bot", { expires_after: 7200, now: hoursAgo(1) });
  const response = await svc.client.get("/-/actor.json", { headers: bearer(live) });
  assert.equal(response.status, 200);
  const actor = (response.json() as { actor: Record<string, unknown> }).actor;
  assert.equal(actor.token_expires, hoursAgo(1) + 7200);
});

Deno.test("max_signed_tokens_ttl caps tokens, including those that never expire", async () => {
  await using svc = shopService({ secret: "s", settings: { max_signed_tokens_ttl: 3600 } });
  const old = createToken(svc.signer, "bot", { now: hoursAgo(2) });
  const tooOld = await svc.client.get("/-/actor.json", { headers: bearer(old) });
  assert.equal(tooOld.status, 401);
  const longLived = createToken(svc.signer, "bot", { expires_after: 86400, now: hoursAgo(2) });
  assert.equal(
    (await svc.client.get("/-/actor.json", { headers: bearer(longLived) })).status,
    401,
  );

  const fresh = createToken(svc.signer, "bot", { now: hoursAgo(0.5) });
  const ok = await svc.client.get("/-/actor.json", { headers: bearer(fresh) });
  assert.equal(ok.status, 200);
  const actor = (ok.json() as { actor: Record<string, unknown> }).actor;
  assert.equal(actor.token_expires, hoursAgo(0.5) + 3600);
});

Deno.test("with allow_signed_tokens off, tokens are refused with a 401", async () => {
  await using svc = shopService({ secret: "s", settings: { allow_signed_tokens: false } });
  const response = await svc.client.get("/-/actor.json", {
    headers: bearer(svc.create_token("bot")),
  });
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
  assert.match((response.json() as { error: string }).error, /not enabled/);
});

Deno.test("an invalid token on an HTML page is a 401 page, not a silent anonymous view", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.get("/", { headers: bearer("dstok_forged") });
  assert.equal(response.status, 401);
  assert.match(response.headers.get("content-type") ?? "", /text\/html/);
  assert.equal(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
});
