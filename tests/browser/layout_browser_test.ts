import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf, waitForExpression } from "./pages.ts";
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

browserTest("the header row follows the page down a long table", async (page, base) => {
  await page.setViewportSize({ width: 1280, height: 360 });
  await page.goto(`${base}/shop/products`);
  // The table's box never scrolls up and down itself: the page does.
  const box = await page.evaluate<number[]>(
    "(() => { const w = document.querySelector('.table-wrapper');" +
      " return [w.scrollHeight, w.clientHeight]; })()",
  );
  assert.ok(box[0] <= box[1] + 1, "no scrolling inside the table's box");
  await page.evaluate(
    "window.scrollTo(0, document.querySelector('table.rows-and-columns').offsetTop + 150)",
  );
  await waitForExpression(
    page,
    "Math.abs(document.querySelector('th.col-name').getBoundingClientRect().top) < 2",
  );
  const header = await page.locator("th.col-name").boundingBox();
  assert.ok(header && Math.abs(header.y) < 2, "header cell pinned to the window top");
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
