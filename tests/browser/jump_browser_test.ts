import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { shopService } from "../fixtures/shop.ts";

browserTest("pressing / on any page finds a table; Enter opens it", async (page, base) => {
  await page.goto(`${base}/shop/categories`);
  await page.keyboard.press("/");
  const input = page.getByRole("searchbox", { name: "Jump to" });
  await input.waitFor();
  await input.fill("order it");
  // The list opened empty shows everything, order_items too (under the database "shop", which
  // Enter would open): wait for the answer to "order it", where it comes first.
  await page.locator(".jump-results li:first-child .jump-name", { hasText: /^order_items$/ })
    .waitFor();
  assert.equal(await page.locator(".jump-results a").first().getAttribute("aria-selected"), "true");
  await page.keyboard.press("Enter");
  await page.waitForURL(`${base}/shop/order_items`);

  // Arrows choose among several; a query is found by its title.
  await page.keyboard.press("/");
  await input.fill("products");
  // The list opened empty shows everything, this query too: wait for the answer to "products".
  await page.locator(".jump-results li:first-child .jump-name", { hasText: /^products$/ })
    .waitFor();
  await page.locator(".jump-results a", { hasText: "Products in a category" }).waitFor();
  const names = await page.locator(".jump-results .jump-name").allInnerTexts();
  assert.equal(names[0], "products");
  const target = names.indexOf("Products in a category");
  for (let i = 0; i < target; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForURL(`${base}/shop/products_by_category`);

  // Typed into a text field, "/" is just a character.
  await page.goto(`${base}/shop/products_by_category`);
  await page.getByLabel("category").focus();
  await page.keyboard.press("/");
  assert.equal(await page.locator("dialog.jump-dialog[open]").count(), 0);
  assert.equal(await page.getByLabel("category").inputValue(), "/");
}, () => shopService());
