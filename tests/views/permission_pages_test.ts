/**
 * The permission debugging pages of the reference's 1.0a37 (`/-/actions`, `/-/rules`,
 * `/-/check`, `/-/allowed`) and `--default-deny`, through `svc.client`.
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../src/service.ts";
import { signedIn } from "./_auth_helpers.ts";
import { quietly } from "../fixtures/quietly.ts";

const METADATA = {
  ...SHOP_METADATA,
  databases: {
    shop: {
      ...SHOP_METADATA.databases.shop,
      permissions: { "insert-row": { id: "alice" } },
      tables: { orders: { allow: { id: "alice" } } },
    },
  },
};

function service(options: ServiceOptions = {}): Service {
  return shopService({ metadata: METADATA, secret: "s", root: true, ...options });
}

const root = (svc: Service) => ({ cookies: signedIn(svc, { id: "root" }) });

Deno.test("/-/actions lists every registered action, for permissions-debug only", async () => {
  await using svc = service();
  assert.equal((await quietly(() => svc.client.get("/-/actions.json"))).status, 403);
  const response = await svc.client.get("/-/actions.json", root(svc));
  assert.equal(response.status, 200);
  const { actions } = response.json() as { actions: Record<string, unknown>[] };
  const viewTable = actions.find((action) => action.name === "view-table");
  assert.deepEqual(viewTable, {
    name: "view-table",
    abbr: "vt",
    description: "See a table or SQL view",
    takes_parent: true,
    takes_child: true,
    resource_class: "table",
    also_requires: null,
    default: true,
  });
  assert.deepEqual(actions.map((action) => action.name), [...actions.map((a) => a.name)].sort());
  const page = await svc.client.get("/-/actions", root(svc));
  assert.match(page.text, /<td>insert-row<\/td><td>ir<\/td><td>table<\/td><td>deny<\/td>/);
});

Deno.test("/-/check explains a denial and a grant, step by step", async () => {
  await using svc = service();
  const check = async (actor: unknown) => {
    const query = new URLSearchParams({
      action: "insert-row",
      parent: "shop",
      child: "log",
      actor: JSON.stringify(actor),
    });
    const response = await svc.client.get(`/-/check.json?${query}`, root(svc));
    assert.equal(response.status, 200, response.text);
    return response.json();
  };
  const denied = await check({ id: "bob" });
  assert.equal(denied.allowed, false);
  assert.deepEqual(denied.resource, { parent: "shop", child: "log", path: "/shop/log" });
  assert.equal(denied.explanation.decided_by, "permissions block");
  assert.deepEqual(denied.explanation.steps.map((step: { step: string }) => step.step), [
    "allow block",
    "permissions block",
  ]);
  assert.equal(denied.explanation.steps[1].answer, "deny");
  const granted = await check({ id: "alice" });
  assert.equal(granted.allowed, true);
  assert.equal(granted.actor_id, "alice");
  assert.equal(granted.explanation.decided_by, "permissions block");
  const nobody = await check(null);
  assert.equal(nobody.allowed, false);
  // Anonymous matches no block either: the permissions block decides against it too.
  assert.equal(nobody.explanation.decided_by, "permissions block");
  const other = await svc.client.get(
    "/-/check.json?action=view-table&parent=shop&child=products&actor=null",
    root(svc),
  );
  assert.equal(other.json().explanation.decided_by, "default");
  assert.match(other.json().explanation.steps.at(-1).reason, /default of view-table is allow/);

  const page = await svc.client.get(
    `/-/check?action=insert-row&parent=shop&child=log&actor=${encodeURIComponent('{"id": "bob"}')}`,
    root(svc),
  );
  assert.match(page.text, /<strong>Denied<\/strong>: insert-row on \/shop\/log/);
  assert.match(page.text, /decided by <strong class="decided-by">permissions block<\/strong>/);
  assert.equal(
    (await quietly(() => svc.client.get("/-/check.json?action=view-table"))).status,
    403,
  );
});

Deno.test("/-/check errors: no action 400, unknown action 404, child without parent 400", async () => {
  await using svc = service();
  const get = (path: string) => quietly(() => svc.client.get(path, root(svc)));
  const none = await get("/-/check.json");
  assert.equal(none.status, 400);
  assert.match(none.text, /action parameter is required/);
  const unknown = await get("/-/check.json?action=fly");
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /Unknown action: fly/);
  assert.equal((await get("/-/check.json?action=view-table&child=x")).status, 400);
  assert.equal((await get("/-/check.json?action=view-table&actor=[1]")).status, 400);
});

Deno.test("/-/rules lists the configuration's rules and root's for the actor", async () => {
  await using svc = service();
  const response = await svc.client.get("/-/rules.json?action=insert-row", root(svc));
  assert.equal(response.status, 200, response.text);
  const body = response.json();
  assert.equal(body.actor_id, "root");
  assert.deepEqual(
    body.items.map((item: Record<string, unknown>) => [item.resource, item.allow, item.source]),
    [["/shop", 0, "permissions block"], ["/", 1, "root"]],
  );
  const alice = await quietly(() =>
    svc.client.get("/-/rules.json?action=insert-row", { cookies: signedIn(svc, { id: "alice" }) })
  );
  assert.equal(alice.status, 403);
});

Deno.test("/-/allowed: anyone sees what they may act on; reasons only with permissions-debug", async () => {
  await using svc = service();
  const anonymous = await svc.client.get("/-/allowed.json?action=view-table&parent=shop");
  assert.equal(anonymous.status, 200);
  const body = anonymous.json();
  const resources = body.items.map((item: { resource: string }) => item.resource);
  assert.ok(resources.includes("/shop/products"));
  assert.ok(!resources.includes("/shop/orders"), "orders is alice's only");
  assert.ok(!("reason" in body.items[0]));
  assert.equal(body.total, resources.length);

  const alice = await svc.client.get("/-/allowed.json?action=view-table&parent=shop&child=orders", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.deepEqual(alice.json().items, [{
    parent: "shop",
    child: "orders",
    resource: "/shop/orders",
  }]);

  const debug = await svc.client.get("/-/allowed.json?action=insert-row", root(svc));
  assert.equal(debug.json().total, 0, "root does not match the insert-row block of shop");
  const views = await svc.client.get("/-/allowed.json?action=view-database", root(svc));
  assert.deepEqual(views.json().items[0].resource, "/shop");
  assert.ok(Array.isArray(views.json().items[0].reason));

  const paged = await svc.client.get("/-/allowed.json?action=view-table&parent=shop&_size=2");
  assert.equal(paged.json().items.length, 2);
  assert.match(paged.json().next_url, /_page=2/);
  assert.equal((await quietly(() => svc.client.get("/-/allowed.json"))).status, 400);
  assert.equal((await quietly(() => svc.client.get("/-/allowed.json?action=nope"))).status, 404);
  const page = await svc.client.get("/-/allowed?action=view-table&parent=shop");
  assert.match(page.text, /<td>\/shop\/products<\/td>/);
});

Deno.test("--default-deny hides everything from anonymous and shows it to an allowed actor; root keeps access", async () => {
  const metadata = { allow: { id: "alice" } };
  await using svc = shopService({ metadata, secret: "s", root: true, default_deny: true });
  for (const path of ["/", "/shop", "/shop/products.json", "/shop/products/1.json"]) {
    const anonymous = await quietly(() => svc.client.get(path));
    assert.equal(anonymous.status, 403, `anonymous ${path}`);
    const bob = await quietly(() =>
      svc.client.get(path, { cookies: signedIn(svc, { id: "bob" }) })
    );
    assert.equal(bob.status, 403, `bob ${path}`);
    const alice = await svc.client.get(path, { cookies: signedIn(svc, { id: "alice" }) });
    assert.equal(alice.status, 200, `alice ${path}`);
    const asRoot = await svc.client.get(path, root(svc));
    assert.equal(asRoot.status, 200, `root ${path}`);
  }
  // Granted viewing, alice still has no other action.
  assert.equal(await svc.permission_allowed({ id: "alice" }, "execute-sql", "shop"), false);
  const listed = await svc.client.get("/-/allowed.json?action=view-table");
  assert.deepEqual(listed.json().items, []);
  const check = await svc.client.get(
    `/-/check.json?action=execute-sql&parent=shop&actor=${encodeURIComponent('{"id":"alice"}')}`,
    root(svc),
  );
  assert.equal(check.json().allowed, false);
  assert.equal(check.json().explanation.decided_by, "default");
  assert.match(check.json().explanation.steps.at(-1).reason, /--default-deny denies everything/);
});
