import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, overflowsHorizontally, textOf } from "./pages.ts";
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

browserTest(
  "row page: foreign keys show labels; on a phone the row reads as label/value pairs",
  async (page, base) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/shop/products/1`);
    assert.deepEqual(await columnValues(page, "category_id"), ["Kitchen 1"]);
    assert.equal(await overflowsHorizontally(page), false);
    // Nothing scrolls sideways inside the table's box either.
    // (Strings, so the test files need no DOM type library.)
    assert.equal(
      await page.evaluate<boolean>(
        "(() => { const el = document.querySelector('.table-wrapper');" +
          " return el.scrollWidth > el.clientWidth; })()",
      ),
      false,
    );
    // Each value sits on its own line, below the previous one, labelled with its column.
    const name = await page.locator("td.col-name").boundingBox();
    const price = await page.locator("td.col-price").boundingBox();
    assert.ok(name && price && price.y >= name.y + name.height - 1);
    assert.ok(name && name.width > 300);
    assert.match(
      await page.evaluate<string>(
        "getComputedStyle(document.querySelector('td.col-name'), '::before').content",
      ),
      /^"name"/,
    );
    // Screen readers still get a table with column headings.
    assert.equal(await page.getByRole("columnheader", { name: "price" }).count(), 1);
    assert.equal(await page.getByRole("cell", { name: "Chef knife" }).count(), 1);
  },
  () => shopService(),
);
