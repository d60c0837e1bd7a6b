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
