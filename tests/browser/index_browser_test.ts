import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";

browserTest("the index page lists the shop database and its tables", async (page, base) => {
  await page.goto(`${base}/`);
  assert.equal(await page.title(), "Corner Shop");
  assert.deepEqual(await bodyClasses(page), ["index"]);
  assert.equal(await textOf(page, "main h1"), "Corner Shop");
  // The header bar is never empty: it names the site and links home.
  const home = page.locator(".site-header a.site-title");
  assert.equal((await home.innerText()).trim(), "Corner Shop");
  assert.equal(await home.getAttribute("href"), "/");
  assert.equal(await textOf(page, ".metadata-description"), SHOP_DESCRIPTION);
  const link = page.locator('main a[href="/shop"]').first();
  assert.equal((await link.textContent())?.trim(), "shop");
  await link.click();
  await page.waitForURL(`${base}/shop`);
}, () => shopService());

const SHOP_DESCRIPTION = "A tiny shop catalogue used for the API examples.";

browserTest("index → database → table by clicking links", async (page, base) => {
  await page.goto(`${base}/`);
  // The index lists the database's tables as links straight to each table.
  await page.locator("main .database-tables a", { hasText: "products" }).click();
  await page.waitForURL(`${base}/shop/products`);
  assert.equal(await textOf(page, "main h1"), "products");

  await page.goto(`${base}/`);
  await page.locator("main h2 a", { hasText: "shop" }).click();
  await page.waitForURL(`${base}/shop`);
  assert.equal(await page.title(), "shop");
  assert.deepEqual(await bodyClasses(page), ["db", "db-shop"]);
  // Crumbs lead back home; the header names the site.
  assert.equal(await textOf(page, ".site-header .site-title"), "Corner Shop");
  assert.deepEqual(await page.locator(".site-header .crumbs a").allInnerTexts(), ["home"]);
  const tables = await page.locator(".tables-list h3 a").allInnerTexts();
  for (const name of ["categories", "log", "order_items", "orders", "products"]) {
    assert.ok(tables.includes(name), `${name} listed on the database page`);
  }
  assert.match((await textOf(page, ".views-list")) ?? "", /cheap_products/);
  assert.match((await textOf(page, ".queries-list")) ?? "", /Products in a category/);

  await page.locator(".tables-list a", { hasText: "orders" }).first().click();
  await page.waitForURL(`${base}/shop/orders`);
  assert.equal(await page.title(), "shop: orders: 3 rows");
  assert.deepEqual(await bodyClasses(page), ["table", "db-shop", "table-orders"]);
  assert.deepEqual(await page.locator(".site-header .crumbs a").allInnerTexts(), [
    "home",
    "shop",
  ]);
  assert.match((await textOf(page, ".table-summary")) ?? "", /^3 rows/);
}, () => shopService());
