/**
 * The anonymous actor's permission answers are kept across requests while nothing they depend on
 * can change (src/service.ts, `#anonymousAnswersKey`). These tests change each of those things
 * after a first page was served and check that the next page follows.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

Deno.test("a setting changed after the first page decides the next one", async () => {
  const svc = shopService();
  try {
    const query = "/shop/-/query.json?sql=select+1";
    assert.equal((await svc.client.get(query)).status, 200);
    svc.settings.set("default_allow_sql", false);
    assert.equal((await svc.client.get(query)).status, 403);
    svc.settings.set("default_allow_sql", true);
    assert.equal((await svc.client.get(query)).status, 200);
  } finally {
    await svc.close();
  }
});

Deno.test("a plugin registered after the first page is asked from then on", async () => {
  const svc = shopService();
  try {
    assert.equal((await svc.client.get("/shop/products.json")).status, 200);
    let asked = 0;
    svc.pm.register({
      permission_allowed: ({ action }: { action: string }) => {
        asked++;
        return action === "view-table" ? false : null;
      },
    }, { name: "late-gate" });
    assert.equal((await svc.client.get("/shop/products.json")).status, 403);
    assert.equal((await svc.client.get("/shop/products.json")).status, 403);
    // A plugin's answers are never kept: it is asked on every request.
    assert.ok(asked >= 2, `asked ${asked} times`);
    svc.pm.unregister("late-gate");
    assert.equal((await svc.client.get("/shop/products.json")).status, 200);
  } finally {
    await svc.close();
  }
});

Deno.test("every anonymous check is still logged for /-/permissions", async () => {
  const svc = shopService({ root: true });
  try {
    // Different pages: a page served again from the page cache runs no checks at all.
    for (let i = 1; i <= 3; i++) await svc.client.get(`/shop/products.json?_size=${i}`);
    const checks = svc.permissionChecker.recentChecks().filter((check) =>
      check.actor === null && check.action === "view-table" &&
      JSON.stringify(check.resource) === '["shop","products"]'
    );
    assert.ok(checks.length >= 3, `${checks.length} checks logged`);
    // No rule has an opinion on this table: each check says so (the view-table default decides).
    assert.ok(checks.every((check) => check.result === null && check.used_default));
  } finally {
    await svc.close();
  }
});

Deno.test("a table's visibility, decided once, logs its whole chain on every page", async () => {
  const svc = shopService();
  try {
    for (let id = 1; id <= 3; id++) {
      assert.equal((await svc.client.get(`/shop/products/${id}.json`)).status, 200);
    }
    const chain = svc.permissionChecker.recentChecks()
      .filter((check) => check.actor === null)
      .map((check) => `${check.action} ${JSON.stringify(check.resource ?? null)} ${check.result}`);
    const one = [
      "view-instance null null",
      'view-database "shop" null',
      'view-table ["shop","products"] null',
    ];
    // Newest first: three row pages, each checked table, database, then instance.
    const pages = chain.join("\n").split(one.join("\n")).length - 1;
    assert.ok(pages >= 3, `the chain was logged ${pages} times:\n${chain.join("\n")}`);
    // What the log hands out is a copy: changing it changes nothing kept.
    const [first] = svc.permissionChecker.recentChecks().filter((c) => c.action === "view-table");
    (first.resource as unknown as string[])[1] = "changed";
    const [again] = svc.permissionChecker.recentChecks().filter((c) => c.action === "view-table");
    assert.deepEqual(again.resource, ["shop", "products"]);
    // A table the visitor may not see is refused from the kept decision as well.
    svc.pm.register({
      permission_allowed: ({ action }: { action: string }) =>
        action === "view-database" ? false : null,
    }, { name: "closed" });
    assert.equal((await svc.client.get("/shop/products/1.json")).status, 403);
    assert.equal((await svc.client.get("/shop/products/2.json")).status, 403);
  } finally {
    await svc.close();
  }
});
