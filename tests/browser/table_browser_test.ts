import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import type { Page } from "playwright-core";

browserTest(
  "table page: the filter form filters rows and describes the filter",
  async (page, base) => {
    await page.goto(`${base}/shop/products`);
    assert.equal(await textOf(page, ".table-summary"), "9 rows");
    const blank = page.locator(".filter-row-new");
    await blank.locator("select[name=_filter_column]").selectOption("price");
    await blank.locator("select[name=_filter_op]").selectOption("gt");
    await blank.locator("input[name=_filter_value]").fill("10");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(`${base}/shop/products?price__gt=10`);
    assert.equal(await textOf(page, ".table-summary"), "4 rows where price > 10");
    assert.equal(await page.title(), "shop: products: 4 rows where price > 10");
    assert.deepEqual(await columnValues(page, "name"), [
      "Chef knife",
      "Garden hose",
      "Hammer",
      "Screwdriver set",
    ]);
    // The applied filter is shown as an editable row of the form.
    const applied = page.locator(".filter-row:not(.filter-row-new):not(.sort-row)").first();
    assert.equal(await applied.locator("select[name=_filter_column_1]").inputValue(), "price");
    assert.equal(await applied.locator("input[name=_filter_value_1]").inputValue(), "10");
  },
  () => shopService(),
);

browserTest(
  "table page: clicking a column header sorts, clicking again reverses",
  async (page, base) => {
    await page.goto(`${base}/shop/products`);
    await page.locator("th.col-price a").click();
    await page.waitForURL(`${base}/shop/products?_sort=price`);
    // Nulls first (the mystery box has no price), then cheapest.
    assert.deepEqual((await columnValues(page, "price")).slice(0, 4), ["", "3.5", "4.25", "7.5"]);
    assert.match((await textOf(page, ".table-summary")) ?? "", /sorted by price/);
    assert.match((await textOf(page, "th.col-price")) ?? "", /▲/);
    await page.locator("th.col-price a").click();
    await page.waitForURL(`${base}/shop/products?_sort_desc=price`);
    assert.equal((await columnValues(page, "price")).slice(0, 2).join(" "), "34.5 19.99");
    assert.match((await textOf(page, "th.col-price")) ?? "", /▼/);
  },
  () => shopService(),
);

browserTest(
  "table page: next page links walk through the rows two at a time",
  async (page, base) => {
    await page.goto(`${base}/shop/products?_size=2`);
    assert.deepEqual(await columnValues(page, "name"), ["Chef knife", "Wooden spoon"]);
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      seen.push(...await columnValues(page, "name"));
      const next = page.locator("a[rel=next]");
      if ((await next.count()) === 0) break;
      await next.click();
      await page.waitForLoadState();
      assert.match(page.url(), /_next=/);
    }
    assert.equal(seen.length, 9);
    assert.equal(seen.at(-1), "Tea towel");
  },
  () => shopService(),
);

browserTest("table page: clicking a facet value selects it", async (page, base) => {
  await page.goto(`${base}/shop/products?_facet=category_id`);
  const facet = page.locator(".facet[data-column=category_id]");
  assert.equal(await textOf(page, ".facet[data-column=category_id] .facet-name"), "category_id ×");
  const labels = await facet.locator(".facet-values li a:not(.facet-remove)").allInnerTexts();
  assert.deepEqual(labels.map((s) => s.trim()).sort(), ["Garden", "Kitchen", "Tools"]);
  await facet.locator("a", { hasText: "Garden" }).click();
  await page.waitForURL(/category_id=2/);
  assert.equal(await textOf(page, ".facet .selected strong"), "Garden");
  assert.equal(await textOf(page, ".table-summary"), "3 rows where category_id = 2");
  assert.deepEqual((await columnValues(page, "name")).sort(), [
    "Garden hose",
    "Trowel",
    "Watering can",
  ]);
  // The selected value's × removes the filter again but keeps the facet.
  await page.locator(".facet .selected a.facet-remove").click();
  await page.waitForURL(/_facet=category_id$/);
  assert.equal(await textOf(page, ".table-summary"), "9 rows");
}, () => shopService());

browserTest("table page: the search box runs a full-text search", async (page, base) => {
  await page.goto(`${base}/shop/products`);
  assert.deepEqual(await bodyClasses(page), ["table", "db-shop", "table-products"]);
  await page.fill("input[name=_search]", "garden");
  await page.press("input[name=_search]", "Enter");
  await page.waitForURL(`${base}/shop/products?_search=garden`);
  assert.equal(await textOf(page, ".table-summary"), ' 1 row where search matches "garden"'.trim());
  assert.deepEqual(await columnValues(page, "name"), ["Garden hose"]);
  assert.equal(await page.inputValue("input[name=_search]"), "garden");
}, () => shopService());

browserTest("table page: the filter form works with JavaScript disabled", async (page, base) => {
  const context = await page.context().browser()!.newContext({ javaScriptEnabled: false });
  const noJs = await context.newPage();
  await noJs.goto(`${base}/shop/products`);
  // Without JavaScript the extra button stays hidden and the plain form still submits.
  assert.equal(await noJs.locator("button.add-filter").isVisible(), false);
  await noJs.selectOption(".filter-row-new select[name=_filter_column]", "name");
  await noJs.selectOption(".filter-row-new select[name=_filter_op]", "contains");
  await noJs.fill(".filter-row-new input[name=_filter_value]", "set");
  await noJs.click("button[type=submit]");
  await noJs.waitForURL(/name__contains=set/);
  assert.deepEqual(await columnValues(noJs, "name"), ["Screwdriver set"]);
  await context.close();
}, () => shopService());

browserTest(
  "table page: a filter applied to a page sorted by two columns keeps both sorts",
  async (page, base) => {
    await page.goto(`${base}/shop/products?_sort=category_id&_sort_desc=price`);
    assert.equal(await page.locator(".sort-row").count(), 2);
    const blank = page.locator(".filter-row-new");
    await blank.locator("select[name=_filter_column]").selectOption("price");
    await blank.locator("select[name=_filter_op]").selectOption("gt");
    await blank.locator("input[name=_filter_value]").fill("5");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(`${base}/shop/products?price__gt=5&_sort=category_id&_sort_desc=price`);
    assert.match(
      (await textOf(page, ".table-summary")) ?? "",
      /sorted by category_id ascending, price descending/,
    );
    // Setting the second row to "none" drops that key; the heading then sorts by its column first.
    await page.locator("select[name=_sort_2]").selectOption("");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(`${base}/shop/products?price__gt=5&_sort=category_id`);
    // Shift-click adds a heading's column as the next key; the headings number their keys.
    await page.locator("th.col-name a").click({ modifiers: ["Shift"] });
    await page.waitForURL(`${base}/shop/products?price__gt=5&_sort=category_id&_sort=name`);
    assert.match((await textOf(page, "th.col-category_id")) ?? "", /▲1/);
    assert.match((await textOf(page, "th.col-name")) ?? "", /▲2/);
    // A plain click sorts by that column alone.
    await page.locator("th.col-price a").click();
    await page.waitForURL(`${base}/shop/products?price__gt=5&_sort=price`);
    assert.doesNotMatch((await textOf(page, "th.col-category_id")) ?? "", /▲/);
  },
  () => shopService(),
);

/** The browser's `getComputedStyle`, typed without the DOM type library. */
type Styles = { getComputedStyle(element: unknown): { textAlign: string } };

/** `text-align` of the first element `selector` matches. */
function alignOf(page: Page, selector: string): Promise<string> {
  return page.locator(selector).first().evaluate((element) =>
    (globalThis as unknown as Styles).getComputedStyle(element).textAlign
  );
}

/** `text-align` of the `price`, `category_id` and `notes` cells of row `id`, and of the headings. */
async function alignments(page: Page, id: number) {
  const row = `tbody tr:has(td.col-id a[href$="/${id}"])`;
  return {
    price: await alignOf(page, `${row} td.col-price`),
    category: await alignOf(page, `${row} td.col-category_id`),
    notes: await alignOf(page, `${row} td.col-notes`),
    priceHeading: await alignOf(page, "th.col-price"),
  };
}

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `table page at ${width}x${height}: a NULL in a column of numbers lines up with the numbers`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      // Sorted by price, the mystery box (no price, no category) comes first: the heading too
      // must not take the NULL for text.
      await page.goto(`${base}/shop/products?_sort=price`);
      assert.deepEqual(await alignments(page, 3), {
        price: "right",
        // A foreign key's values are links, kept to the left; so is its NULL, and text's.
        category: "left",
        notes: "left",
        priceHeading: "right",
      });
      assert.equal((await alignments(page, 2)).price, "right");
      if (Deno.env.get("VITRINE_SCREENSHOTS")) {
        await page.screenshot({ path: `${Deno.env.get("VITRINE_SCREENSHOTS")}/null-${width}.png` });
      }
      // Nothing but NULLs on the page: the declared REAL type tells.
      await page.goto(`${base}/shop/products?price__isnull=1`);
      assert.equal((await alignments(page, 3)).price, "right");
      // The row page shows one value per line, all to the left, the NULL too.
      await page.goto(`${base}/shop/products/3`);
      assert.equal(await alignOf(page, "td.col-price"), "left");
    },
    () => shopService(),
  );
}
