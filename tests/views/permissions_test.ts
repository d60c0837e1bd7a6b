import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Actor, Service } from "../../src/service.ts";
import { signedIn, submitForm } from "./_auth_helpers.ts";

function rootCookies(svc: Service) {
  return signedIn(svc, { id: "root" });
}

Deno.test("/-/permissions is forbidden without permissions-debug, as HTML and as JSON", async () => {
  await using svc = shopService({ secret: "s" });
  const page = await svc.client.get("/-/permissions");
  assert.equal(page.status, 403);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  const json = await svc.client.get("/-/permissions.json", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(json.status, 403);
  assert.deepEqual(json.json(), {
    ok: false,
    error: "Permission denied: permissions-debug",
    errors: ["Permission denied: permissions-debug"],
    status: 403,
    title: "Permission denied",
  });
});

Deno.test("/-/permissions.json lists recent checks, newest first, and the known permissions", async () => {
  await using svc = shopService({ secret: "s", root: true });
  await svc.client.get("/.json");
  const response = await svc.client.get("/-/permissions.json", { cookies: rootCookies(svc) });
  assert.equal(response.status, 200);
  const body = response.json() as {
    checks: { action: string; actor: Actor | null; resource: unknown; result: boolean }[];
    permissions: { name: string; abbr: string; default: boolean }[];
  };
  assert.deepEqual(body.checks[0].action, "permissions-debug");
  assert.deepEqual(body.checks[0].actor, { id: "root" });
  assert.equal(body.checks[0].result, true);
  const viewShop = body.checks.find((c) => c.action === "view-database");
  assert.ok(viewShop);
  assert.equal(viewShop.actor, null);
  assert.equal(viewShop.resource, "shop");
  assert.deepEqual(
    body.permissions.find((p) => p.name === "view-table"),
    {
      name: "view-table",
      abbr: "vt",
      description: "See a table or SQL view",
      takes_database: true,
      takes_resource: true,
      default: true,
    },
  );
});

Deno.test("/-/permissions shows the checks in a table to actors granted permissions-debug", async () => {
  const metadata = { permissions: { "permissions-debug": { id: "alice" } } };
  await using svc = shopService({ secret: "s", metadata });
  await svc.client.get("/");
  const page = await svc.client.get("/-/permissions", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(page.status, 200);
  assert.match(page.text, /<table class="rows-and-columns permission-checks">/);
  assert.match(page.text, /<td>view-instance<\/td>/);
  assert.match(page.text, /name="permission"/);
});

Deno.test("the /-/permissions form runs one check and shows its result", async () => {
  const metadata = {
    databases: { shop: { tables: { orders: { allow: { id: "manager" } } } } },
  };
  await using svc = shopService({ secret: "s", root: true, metadata });
  const denied = await submitForm(svc, "/-/permissions", {
    actor: '{"id": "alice"}',
    permission: "view-table",
    resource_1: "shop",
    resource_2: "orders",
  }, rootCookies(svc));
  assert.equal(denied.status, 200);
  assert.match(denied.text, /Result: <strong>denied<\/strong>/);
  assert.match(denied.text, /value="orders"/);

  const allowed = await submitForm(
    svc,
    "/-/permissions",
    {
      actor: '{"id": "manager"}',
      permission: "vt",
      resource_1: "shop",
      resource_2: "orders",
    },
    rootCookies(svc),
    "/-/permissions.json",
  );
  assert.deepEqual(allowed.json(), {
    actor: { id: "manager" },
    permission: "view-table",
    resource: ["shop", "orders"],
    result: true,
    default: true,
  });
});

Deno.test("the /-/permissions form rejects bad input with a 400", async () => {
  await using svc = shopService({ secret: "s", root: true });
  const badActor = await submitForm(svc, "/-/permissions", {
    actor: "{oops",
    permission: "view-table",
  }, rootCookies(svc));
  assert.equal(badActor.status, 400);
  assert.match(badActor.text, /Actor JSON error/);
  const unknown = await submitForm(svc, "/-/permissions", {
    actor: "null",
    permission: "fly",
  }, rootCookies(svc));
  assert.equal(unknown.status, 400);
  assert.match(unknown.text, /Unknown permission: fly/);
});
