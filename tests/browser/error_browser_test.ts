import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, textOf } from "./pages.ts";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";

browserTest("an unknown table shows a 404 page with a way home", async (page, base) => {
  const response = await page.goto(`${base}/shop/no_such_table`);
  assert.equal(response?.status(), 404);
  assert.equal(await page.title(), "Error 404");
  assert.deepEqual(await bodyClasses(page), ["error", "error-404"]);
  assert.equal(await textOf(page, "main h1"), "Error 404");
  assert.match((await textOf(page, ".error-message")) ?? "", /not found/i);
  await page.locator(".error-help a", { hasText: "home page" }).click();
  await page.waitForURL(`${base}/`);
}, () => shopService());

browserTest("a table with allow: false shows a 403 page", async (page, base) => {
  const response = await page.goto(`${base}/shop/log`);
  assert.equal(response?.status(), 403);
  assert.equal(await page.title(), "Forbidden");
  assert.deepEqual(await bodyClasses(page), ["error", "error-403"]);
  assert.match((await textOf(page, ".error-message")) ?? "", /permission|forbidden/i);
  // The hidden table is not offered on the database page either.
  await page.goto(`${base}/shop`);
  assert.equal(await page.locator(".tables-list a", { hasText: /^log$/ }).count(), 0);
}, () =>
  shopService({
    metadata: {
      ...SHOP_METADATA,
      databases: {
        shop: { ...SHOP_METADATA.databases.shop, tables: { log: { allow: false } } },
      },
    },
  }));
