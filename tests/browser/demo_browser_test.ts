/** A walk through the bundled demo database, as a first-time visitor would take it. */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, textOf, typeSql } from "./pages.ts";
import { demoService } from "../fixtures/demo.ts";

browserTest(
  "the demo: index, database, table, row, canned query and custom SQL",
  async (page, base) => {
    await page.goto(`${base}/`);
    assert.equal(await page.title(), "Alderbrook street trees");
    await page.locator('a[href="/demo"]').first().click();
    await page.waitForURL(`${base}/demo`);
    assert.deepEqual(await bodyClasses(page), ["db", "db-demo"]);

    await page.locator('a[href="/demo/trees"]').first().click();
    await page.waitForURL(`${base}/demo/trees`);
    assert.match(await textOf(page, "main") ?? "", /1,500 rows/);
    // Configured facets show up with the neighbourhood labels.
    assert.match(await textOf(page, "main") ?? "", /Old Mill/);

    await page.locator("table.rows-and-columns tbody td.col-id a").first().click();
    await page.waitForURL(`${base}/demo/trees/1`);
    assert.deepEqual(await bodyClasses(page), ["row", "db-demo", "table-trees"]);

    await page.goto(`${base}/demo/trees_by_species`);
    await page.fill('input[name="species"]', "Rowan");
    await Promise.all([
      page.waitForURL(/species=Rowan/),
      page.press('input[name="species"]', "Enter"),
    ]);
    const addresses = await columnValues(page, "address");
    assert.ok(addresses.length > 0);

    await page.goto(`${base}/demo`);
    await typeSql(page, "select common_name from species where native = 1 order by 1");
    await page.getByRole("button", { name: "Run SQL" }).click();
    await page.waitForURL(/sql=select/);
    assert.deepEqual((await columnValues(page, "common_name")).slice(0, 2), [
      "English oak",
      "Hornbeam",
    ]);
  },
  demoService,
);
