import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { decodeActorCookie } from "../../src/auth/actor_cookie.ts";

Deno.test("--root: the printed auth-token URL signs in as root once, then redirects home", async () => {
  await using svc = shopService({ root: true, secret: "s" });
  const token = svc.rootToken!.value;
  const first = await svc.client.get(`/-/auth-token?token=${token}`);
  assert.equal(first.status, 302);
  assert.equal(first.headers.get("location"), "/");
  const cookie = first.cookies.ds_actor;
  assert.deepEqual(decodeActorCookie(svc.signer, cookie), { id: "root" });
  assert.match(first.headers.getSetCookie()[0], /HttpOnly/);

  const actor = await svc.client.get("/-/actor.json", { cookies: { ds_actor: cookie } });
  assert.deepEqual(actor.json(), { ok: true, actor: { id: "root" } });

  const again = await svc.client.get(`/-/auth-token?token=${token}`);
  assert.equal(again.status, 403);
  assert.match(again.text, /Root token has already been used/);
  assert.equal(again.cookies.ds_actor, undefined);
});

Deno.test("--root: a wrong token is refused and does not use up the real one", async () => {
  await using svc = shopService({ root: true, secret: "s" });
  const wrong = await svc.client.get("/-/auth-token?token=not-the-token");
  assert.equal(wrong.status, 403);
  assert.match(wrong.text, /Invalid token/);
  const missing = await svc.client.get("/-/auth-token");
  assert.equal(missing.status, 403);
  const right = await svc.client.get(`/-/auth-token?token=${svc.rootToken!.value}`);
  assert.equal(right.status, 302);
});

Deno.test("without --root the auth-token page signs nobody in", async () => {
  await using svc = shopService({ secret: "s" });
  const response = await svc.client.get("/-/auth-token?token=anything");
  assert.equal(response.status, 403);
  assert.equal(response.cookies.ds_actor, undefined);
});

Deno.test("the root cookie is byte-identical to the reference system's for the same secret", async () => {
  await using svc = shopService({ root: true, secret: "secret" });
  const response = await svc.client.get(`/-/auth-token?token=${svc.rootToken!.value}`);
  assert.equal(
    response.cookies.ds_actor,
    "eyJhIjp7ImlkIjoicm9vdCJ9fQ.Nyuc5Q7xhxf1VMYzBUosCIdrdW0",
  );
});

Deno.test("--root grants root every action, including ones denied by default", async () => {
  await using svc = shopService({ root: true, secret: "s" });
  const root = { id: "root" };
  await svc.invoke_startup();
  for (const permission of svc.permissionRegistry) {
    const resource = permission.takes_resource
      ? ["shop", "products"] as [string, string]
      : permission.takes_database
      ? "shop"
      : null;
    assert.equal(
      await svc.permission_allowed(root, permission.name, resource),
      true,
      permission.name,
    );
    assert.equal(
      await svc.permission_allowed({ id: "alice" }, permission.name, resource),
      permission.default,
      `alice ${permission.name}`,
    );
  }
  const debug = await svc.client.get("/-/permissions.json", {
    cookies: { ds_actor: svc.sign({ a: root }, "actor") },
  });
  assert.equal(debug.status, 200);
});

Deno.test("a root cookie grants nothing extra when the server was not started with --root", async () => {
  await using svc = shopService({ secret: "s" });
  const cookies = { ds_actor: svc.sign({ a: { id: "root" } }, "actor") };
  assert.equal(await svc.permission_allowed({ id: "root" }, "permissions-debug"), false);
  const debug = await svc.client.get("/-/permissions.json", { cookies });
  assert.equal(debug.status, 403);
});
