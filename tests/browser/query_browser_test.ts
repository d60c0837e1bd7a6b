import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, textOf, typeSql } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { parametersService } from "../fixtures/parameters.ts";

browserTest(
  "custom SQL: type a query on the database page, run it, see rows",
  async (page, base) => {
    await page.goto(`${base}/shop`);
    await typeSql(page, "select name, price from products where price < 5 order by price");
    await page.getByRole("button", { name: "Run SQL" }).click();
    await page.waitForURL(/\/shop\?sql=select/);
    assert.deepEqual(await bodyClasses(page), ["query", "db-shop"]);
    assert.match(await page.title(), /^shop: select name, price from products/);
    assert.equal(await textOf(page, "main h1"), "shop");
    assert.equal(await textOf(page, ".query-summary"), "2 rows");
    assert.deepEqual(await columnValues(page, "name"), ["Tea towel", "Wooden spoon"]);
    // The SQL stays in the editor for the next edit; Ctrl+Enter runs it again.
    assert.match(await page.inputValue("textarea[name=sql]"), /price < 5/);
    await typeSql(page, "select count(*) as n from products");
    await page.keyboard.press("Control+Enter");
    await page.waitForURL(/count/);
    assert.deepEqual(await columnValues(page, "n"), ["9"]);
  },
  () => shopService(),
);

browserTest("custom SQL: a :min_price parameter gets a field that filters", async (page, base) => {
  const sql =
    "select name, price from products where price > cast(:min_price as real) order by price";
  await page.goto(`${base}/shop?sql=${encodeURIComponent(sql)}`);
  const field = page.getByLabel("min_price");
  assert.equal(await field.inputValue(), "");
  await field.fill("15");
  await page.getByRole("button", { name: "Run SQL" }).click();
  await page.waitForURL(/min_price=15/);
  assert.deepEqual(await columnValues(page, "name"), [
    "Screwdriver set",
    "Garden hose",
    "Chef knife",
  ]);
  assert.equal(await page.getByLabel("min_price").inputValue(), "15");
  assert.equal(await textOf(page, ".query-summary"), "3 rows");
}, () => shopService());

browserTest("custom SQL: an error is shown next to the editor", async (page, base) => {
  await page.goto(`${base}/shop?sql=${encodeURIComponent("select * from nowhere")}`);
  assert.match((await textOf(page, ".query-error")) ?? "", /no such table: nowhere/);
  assert.equal(await page.inputValue("textarea[name=sql]"), "select * from nowhere");
}, () => shopService());

browserTest("canned query: the products_by_category form runs the query", async (page, base) => {
  await page.goto(`${base}/shop`);
  await page.getByRole("link", { name: "Products in a category" }).click();
  await page.waitForURL(`${base}/shop/products_by_category`);
  assert.equal(await page.title(), "Products in a category");
  assert.deepEqual(await bodyClasses(page), [
    "query",
    "db-shop",
    "query-products_by_category",
  ]);
  assert.equal(await textOf(page, "main h1"), "Products in a category");
  assert.equal(
    await textOf(page, ".metadata-description"),
    "Pass ?category=Kitchen, Garden or Tools",
  );
  assert.match((await textOf(page, ".sql-display")) ?? "", /where categories.name = :category/);
  await page.getByLabel("category").fill("Garden");
  await page.getByRole("button", { name: "Run query" }).click();
  await page.waitForURL(/category=Garden/);
  assert.deepEqual(await columnValues(page, "name"), ["Trowel", "Watering can", "Garden hose"]);
  assert.equal(await page.getByLabel("category").inputValue(), "Garden");
  // "Hide SQL" keeps the form usable.
  await page.getByRole("link", { name: "Hide SQL" }).click();
  await page.waitForURL(/_hide_sql=1/);
  assert.equal(await page.locator(".sql-display").count(), 0);
  assert.deepEqual(await columnValues(page, "name"), ["Trowel", "Watering can", "Garden hose"]);
}, () => shopService());

browserTest("NULL and the empty string look different; no request fails", async (page, base) => {
  const failed: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  const sql = "select null as a, '' as b, 'x' as c";
  await page.goto(`${base}/shop?sql=${encodeURIComponent(sql)}`);
  const marker = (column: string) =>
    page.evaluate<string>(
      `getComputedStyle(document.querySelector('td.col-${column}'), '::after').content`,
    );
  assert.equal(await marker("a"), '"null"');
  assert.equal(await marker("b"), "none");
  // The marker is not part of the value: copying the cell copies nothing for NULL.
  assert.equal((await columnValues(page, "a"))[0], "");
  // Not even the favicon is missing (browsers ask /favicon.ico of JSON pages too).
  await page.goto(`${base}/shop.json`);
  assert.deepEqual(failed, []);
}, () => shopService());

browserTest(
  "query parameters: a select of choices, a number, a date and defaults",
  async (page, base) => {
    // All defaulted: the page shows results at once, with the defaults in the fields.
    await page.goto(`${base}/shop/by_level`);
    assert.deepEqual(await columnValues(page, "next"), ["42"]);
    assert.equal(await page.getByLabel("level", { exact: true }).inputValue(), "warn");
    await page.getByLabel("level", { exact: true }).selectOption({ label: "info" });
    await page.getByLabel("n", { exact: true }).fill("9");
    await page.getByRole("button", { name: "Run query" }).click();
    await page.waitForURL(/level=info/);
    assert.deepEqual(await columnValues(page, "level"), ["info"]);
    assert.deepEqual(await columnValues(page, "next"), ["10"]);

    // One without a default: the form waits; choices come from SQL, a date picker, a number box.
    await page.goto(`${base}/shop/by_category`);
    assert.equal(await page.locator("table.rows-and-columns").count(), 0);
    assert.equal(await page.getByLabel("Highest price").inputValue(), "100");
    assert.equal(await page.getByLabel("Highest price").getAttribute("type"), "number");
    assert.equal(await page.getByLabel("Added since").getAttribute("type"), "date");
    await page.getByLabel("Category").selectOption({ label: "Kitchen" });
    await page.getByLabel("Highest price").fill("5");
    await page.getByLabel("Added since").fill("2020-01-01");
    await page.getByRole("button", { name: "Run query" }).click();
    await page.waitForURL(/category=1/);
    assert.match(page.url(), /since=2020-01-01/);
    assert.deepEqual(await columnValues(page, "name"), ["Tea towel", "Wooden spoon"]);
    assert.equal(await page.getByLabel("Category").inputValue(), "1");
  },
  () => parametersService(),
);
