import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { bearer, signedIn, submitForm } from "./_auth_helpers.ts";

/** The token shown on the page after a successful POST. */
function shownToken(html: string): string {
  const match = /<textarea class="token-output"[^>]*>(dstok_[^<]+)<\/textarea>/.exec(html);
  if (!match) throw new Error("No token on the page");
  return match[1];
}

async function actorOf(svc: ReturnType<typeof shopService>, token: string) {
  const response = await svc.client.get("/-/actor.json", { headers: bearer(token) });
  assert.equal(response.status, 200);
  return (response.json() as { actor: Record<string, unknown> }).actor;
}

Deno.test("GET /-/create-token offers expiry and per-database and per-table restrictions", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/create-token", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(page.status, 200);
  assert.match(page.text, /name="csrftoken"/);
  assert.match(page.text, /name="expire_type"/);
  assert.match(page.text, /name="all:view-instance"/);
  assert.match(page.text, /name="database:shop:execute-sql"/);
  assert.match(page.text, /name="resource:shop:products:view-table"/);
  assert.match(page.text, /name="resource:shop:cheap_products:view-table"/);
  // FTS shadow tables are noise in a restriction form.
  assert.doesNotMatch(page.text, /products_fts_data/);
});

Deno.test("the form offers only actions something performs (issue 37 item 17)", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/create-token", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  const performed = [
    "view-table",
    "execute-sql",
    "insert-row",
    "store-query",
    "view-metrics",
    "set-column-type",
    "execute-write-sql",
  ];
  for (const action of performed) {
    assert.match(page.text, new RegExp(`name="all:${action}"`), action);
  }
  // Tables offer set-column-type (it acts on one table).
  assert.match(page.text, /name="resource:shop:products:set-column-type"/);
  for (const action of ["create-view", "drop-view"]) {
    assert.doesNotMatch(page.text, new RegExp(`:${action}"`), action);
  }
});

Deno.test("the form lists only the tables the actor may see", async () => {
  const metadata = { databases: { shop: { tables: { orders: { allow: { id: "manager" } } } } } };
  await using svc = shopService({ secret: "s", metadata });
  const page = await svc.client.get("/-/create-token", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.doesNotMatch(page.text, /resource:shop:orders:/);
  assert.match(page.text, /resource:shop:products:/);
});

Deno.test("POST /-/create-token creates a working token for the signed-in actor", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await submitForm(svc, "/-/create-token", {}, signedIn(svc, { id: "alice" }));
  assert.equal(response.status, 200);
  const token = shownToken(response.text);
  assert.deepEqual(await actorOf(svc, token), { id: "alice", token: "dstok" });
  // The new token comes before the (long) form, which is offered again for another token.
  const shown = response.text.indexOf('class="created-token"');
  assert.ok(shown > 0 && shown < response.text.indexOf('<form class="stacked-form"'));
  assert.match(response.text, /<h2>Create another token<\/h2>/);
});

Deno.test("the chosen expiry and restrictions end up in the token", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await submitForm(svc, "/-/create-token", {
    expire_type: "hours",
    expire_duration: "2",
    "all:view-instance": "on",
    "database:shop:execute-sql": "on",
    "resource:shop:products:view-table": "on",
  }, signedIn(svc, { id: "alice" }));
  assert.equal(response.status, 200);
  const actor = await actorOf(svc, shownToken(response.text));
  assert.equal(actor.id, "alice");
  assert.ok(typeof actor.token_expires === "number");
  const lifetime = (actor.token_expires as number) - Math.floor(Date.now() / 1000);
  assert.ok(lifetime > 7000 && lifetime <= 7200, String(lifetime));
  assert.deepEqual(actor._r, {
    a: ["vi"],
    d: { shop: ["es"] },
    r: { shop: { products: ["vt"] } },
  });
  assert.equal(await svc.permission_allowed(actor, "view-table", ["shop", "orders"]), false);
});

Deno.test("bad expiry input is shown as an error and mints nothing", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await submitForm(svc, "/-/create-token", {
    expire_type: "days",
    expire_duration: "-3",
  }, signedIn(svc, { id: "alice" }));
  assert.equal(response.status, 400);
  assert.match(response.text, /whole number greater than zero/);
  assert.doesNotMatch(response.text, /dstok_/);
});

Deno.test("max_signed_tokens_ttl is written into tokens from the form, with a warning", async () => {
  await using svc = shopService({ secret: "s", settings: { max_signed_tokens_ttl: 600 } });
  const response = await submitForm(svc, "/-/create-token", {}, signedIn(svc, { id: "alice" }));
  assert.match(response.text, /expire after at most 600 seconds/);
  const actor = await actorOf(svc, shownToken(response.text));
  assert.ok((actor.token_expires as number) <= Math.floor(Date.now() / 1000) + 600);
});

Deno.test("anonymous visitors cannot create tokens", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/create-token");
  assert.equal(page.status, 403);
  assert.match(page.text, /must be logged in/);
});

Deno.test("tokens cannot mint tokens", async () => {
  await using svc = shopService({ secret: "s" });
  const token = svc.create_token("alice");
  const page = await svc.client.get("/-/create-token", { headers: bearer(token) });
  assert.equal(page.status, 403);
  assert.match(page.text, /Token authentication cannot be used to create additional tokens/);
  // Bearer requests skip CSRF, so the POST reaches the view and is refused there.
  const post = await svc.client.post("/-/create-token", {
    data: { "all:view-instance": "on" },
    headers: { ...bearer(token), accept: "application/json" },
  });
  assert.equal(post.status, 403);
  assert.equal((post.json() as { ok: boolean }).ok, false);
  // A cookie actor that carries a token key is refused as well.
  const cookie = await svc.client.get("/-/create-token", {
    cookies: signedIn(svc, { id: "alice", token: "dstok" }),
  });
  assert.equal(cookie.status, 403);
});

Deno.test("the form refuses everyone when signed tokens are disabled", async () => {
  await using svc = shopService({ secret: "s", settings: { allow_signed_tokens: false } });
  const page = await svc.client.get("/-/create-token", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(page.status, 403);
  assert.match(page.text, /Signed tokens are not enabled/);
});

Deno.test("POST /-/create-token without the CSRF token is refused", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.post("/-/create-token", {
    data: {},
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(response.status, 403);
  assert.doesNotMatch(response.text, /dstok_/);
});
