import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";

browserTest(
  "row page: reached from a primary-key link, lists incoming links",
  async (page, base) => {
    await page.goto(`${base}/shop/products`);
    await page.locator("td.col-id a", { hasText: /^4$/ }).click();
    await page.waitForURL(`${base}/shop/products/4`);
    assert.equal(await page.title(), "shop: products: 4");
    assert.deepEqual(await bodyClasses(page), ["row", "db-shop", "table-products"]);
    assert.equal(await textOf(page, "main h1"), "products: 4");
    assert.deepEqual(await columnValues(page, "name"), ["Garden hose"]);
    assert.deepEqual(await page.locator(".site-header .crumbs a").allInnerTexts(), [
      "home",
      "shop",
      "products",
    ]);
    const incoming = page.locator(".foreign-key-tables li");
    assert.equal(await incoming.count(), 1);
    assert.match(await incoming.innerText(), /1 row\s+from product_id in order_items/);
    await incoming.locator("a").click();
    await page.waitForURL(`${base}/shop/order_items?product_id=4`);
    assert.equal(await textOf(page, ".table-summary"), "1 row where product_id = 4");
  },
  () => shopService(),
);
