import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";

const PAGES = [
  "/",
  "/shop",
  "/shop/products?_facet=category_id&price__gt=1",
  "/shop/products/1",
  "/shop?sql=select+*+from+products",
  "/shop/products_by_category?category=Garden",
  "/shop/add_log_entry",
  "/shop/nope",
  "/-/messages",
];

browserTest(
  "on a 390px phone no page scrolls sideways; wide tables scroll in their box",
  async (page, base) => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const path of PAGES) {
      await page.goto(`${base}${path}`);
      assert.equal(await overflowsHorizontally(page), false, `${path} overflows at 390px`);
      assert.equal(await textOf(page, ".site-header .site-title"), "Corner Shop", path);
    }
    await page.goto(`${base}/shop/products`);
    const scrolls = await page.evaluate<boolean>(
      "(() => { const w = document.querySelector('.table-wrapper'); return w.scrollWidth > w.clientWidth; })()",
    );
    assert.ok(scrolls, "the products table scrolls inside .table-wrapper");
  },
  () => shopService(),
);

browserTest("the table header row stays in view while the rows scroll", async (page, base) => {
  await page.setViewportSize({ width: 1280, height: 360 });
  await page.goto(`${base}/shop/products`);
  const wrapper = page.locator(".table-wrapper");
  const scrolled = await wrapper.evaluate((box: { scrollTop: number }) => {
    box.scrollTop = 150;
    return box.scrollTop;
  });
  assert.ok(scrolled > 0, "a table taller than the window scrolls inside its box");
  const wrapperBox = await wrapper.boundingBox();
  const headerBox = await page.locator("th.col-name").boundingBox();
  assert.ok(wrapperBox && headerBox);
  assert.ok(Math.abs(headerBox.y - wrapperBox.y) <= 2, "header cell pinned to the box top");
}, () => shopService());

browserTest("every kind of page works with JavaScript disabled", async (page, base) => {
  const context = await page.context().browser()!.newContext({ javaScriptEnabled: false });
  const noJs = await context.newPage();
  for (const path of PAGES) {
    const response = await noJs.goto(`${base}${path}`);
    assert.ok(response && [200, 404].includes(response.status()), path);
    assert.ok(await noJs.locator("main h1").isVisible(), `${path} has a visible heading`);
  }
  // Custom SQL runs from the plain form.
  await noJs.goto(`${base}/shop`);
  await noJs.fill("textarea[name=sql]", "select 6 * 7 as answer");
  await noJs.click("button[type=submit]");
  await noJs.waitForURL(/sql=/);
  assert.equal(await textOf(noJs, "td.col-answer"), "42");
  await context.close();
}, () => shopService());
