/**
 * Table pages as a data team uses them, on a wide and a phone screen in light and dark: nothing
 * out of reach, the header row in view, exports of every row, honest facets, shared query links,
 * sorting by a click and the column menus.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { columnValues, overflowsHorizontally, textOf, waitForExpression } from "./pages.ts";
import {
  backgroundLuminance,
  innerVerticalScrollers,
  onTop,
  SCREENS,
  topOf,
  uiService,
  unreachable,
  useScreen,
} from "./ui_fixture.ts";

/** The page's path and query, as the address bar shows it. */
function where(page: Page): string {
  const url = new URL(page.url());
  return decodeURIComponent(url.pathname + url.search);
}

for (const screen of SCREENS) {
  browserTest(
    `${screen.name}: the trees table is all reachable; its header follows`,
    async (page, base) => {
      await useScreen(page, screen);
      await page.goto(`${base}/demo/trees`);
      assert.equal(await overflowsHorizontally(page), false, "the page never scrolls sideways");
      assert.deepEqual(await unreachable(page), [], "everything wider than the window scrolls");
      assert.deepEqual(await innerVerticalScrollers(page), [], "no box hides rows or values");
      // Open menus fit the window too.
      for (const menu of [".actions-menu", ".export-menu"]) {
        await page.locator(`${menu} summary`).click();
        assert.deepEqual(await unreachable(page), [], `${menu} open`);
        await page.locator(`${menu} summary`).click();
      }
      // Every facet value is listed: the eighth neighbourhood too.
      const neighbourhoods = page.locator(".facet[data-column=neighborhood_id] .facet-values a");
      assert.equal(await neighbourhoods.count(), 8);
      // The last column can be scrolled into view inside the table's box.
      await page.evaluate("document.querySelector('.table-wrapper').scrollLeft = 1e6");
      const wrapper = await page.locator(".table-wrapper").boundingBox();
      const last = await page.locator("th[data-column=longitude]").boundingBox();
      assert.ok(wrapper && last && last.x + last.width <= wrapper.x + wrapper.width + 1);
      // The first column stays put while the rest scrolls.
      const firstCell = await page.locator("tbody tr:first-child td:first-child").boundingBox();
      assert.ok(firstCell && Math.abs(firstCell.x - wrapper.x - 1) <= 2, "first column pinned");
      // Scrolled well into the rows, the header row is at the top of the window, above the rows.
      await page.evaluate(
        "window.scrollTo(0, document.querySelector('table.rows-and-columns').offsetTop + 1500)",
      );
      await waitForExpression(
        page,
        "Math.abs(document.querySelector('th[data-column=longitude]').getBoundingClientRect().top) < 2",
      );
      // (The box is still scrolled to its last column, which is in view.)
      assert.ok(Math.abs(await topOf(page, "th[data-column=longitude]")) < 2);
      assert.ok(
        await onTop(page, "th[data-column=longitude]"),
        "the header is not covered by rows",
      );
      assert.ok(await onTop(page, "th[data-column=id]"), "the pinned corner heading too");
      // The box's own sideways scrollbar is far below; a copy sits at the window's bottom edge
      // and scrolls the table.
      const bar = page.locator(".pinned-scrollbar");
      await bar.waitFor();
      const barBox = await bar.boundingBox();
      const height = await page.evaluate("innerHeight") as number;
      assert.ok(barBox && Math.abs(barBox.y + barBox.height - height) <= 2, "pinned to the bottom");
      await bar.evaluate((element) => (element.scrollLeft = 0));
      await waitForExpression(page, "document.querySelector('.table-wrapper').scrollLeft === 0");
      await bar.evaluate((element) => (element.scrollLeft = 1e6));
      await waitForExpression(page, "document.querySelector('.table-wrapper').scrollLeft > 0");
      // At the foot of the table its own scrollbar is in view: the copy goes.
      await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
      await waitForExpression(page, "document.querySelector('.pinned-scrollbar').hidden");
      const dark = (await backgroundLuminance(page, "body")) < 0.05;
      assert.equal(dark, screen.scheme === "dark", "the page follows the colour scheme");
      assert.equal(
        (await backgroundLuminance(page, "table.rows-and-columns th")) < 0.05,
        screen.scheme === "dark",
      );
    },
    uiService,
  );

  browserTest(`${screen.name}: the export menu streams every row`, async (page, base) => {
    await useScreen(page, screen);
    await page.goto(`${base}/demo/trees?condition=poor`);
    await page.locator(".export-menu summary").click();
    assert.match((await textOf(page, ".export-panel")) ?? "", /This page: 100 rows of 200/);
    assert.match((await textOf(page, ".export-panel")) ?? "", /All 200 rows, streamed/);
    const all = page.getByRole("link", { name: "All rows as CSV" });
    assert.ok(await all.isVisible());
    const response = await page.request.get(
      new URL(await all.getAttribute("href") ?? "", base).href,
    );
    assert.equal(response.status(), 200);
    assert.match(
      response.headers()["content-disposition"] ?? "",
      /attachment; filename="trees.csv"/,
    );
    const lines = (await response.text()).trim().split(/\r?\n/);
    assert.equal(lines.length, 201, "a header and all 200 poor trees, not one page");
    assert.ok(lines.slice(1).every((line) => line.includes(",poor,")));
    // Unticking "download" makes the links open in the browser; labels can be expanded.
    await page.getByLabel("Download as a file").uncheck();
    await page.getByLabel("Expand labels").check();
    const href = await all.getAttribute("href") ?? "";
    assert.doesNotMatch(href, /_dl=/);
    assert.match(href, /_labels=on/);
    assert.match(href, /_stream=on/);
    const labelled = await (await page.request.get(new URL(href, base).href)).text();
    assert.match(labelled.split(/\r?\n/)[0], /species_id,species_id_label/);
  }, uiService);

  browserTest(
    `${screen.name}: facets that time out say so; "…" shows more values`,
    async (page, base) => {
      await useScreen(page, screen);
      await page.goto(`${base}/slow/counting?_facet=k&_nocount=1&_nosuggest=1`);
      assert.match(
        (await textOf(page, ".facets-timed-out")) ?? "",
        /^Facets timed out: k\. /,
      );
      assert.ok(await page.locator(".facets-timed-out").isVisible());
      // A truncated facet's "…" is a link to all of its values.
      await page.goto(`${base}/demo/trees?_facet=species_id&_facet_size=3`);
      const more = page.getByRole("link", { name: "Show every species_id value" });
      await more.click();
      await page.waitForURL(/_facet_size=max/);
      assert.equal(
        await page.locator(".facet[data-column=species_id] .facet-values li a").count(),
        10,
      );
    },
    uiService,
  );

  browserTest(
    `${screen.name}: a shared canned-query link shows its results`,
    async (page, base) => {
      await useScreen(page, screen);
      await page.goto(`${base}/demo/trees_by_species?species=Red+maple`);
      assert.equal(await page.getByLabel("species").inputValue(), "Red maple");
      const heights = (await columnValues(page, "height_m")).map(Number);
      assert.ok(heights.length > 50, `results shown, got ${heights.length}`);
      assert.deepEqual(heights, [...heights].sort((a, b) => b - a));
      assert.match((await textOf(page, ".query-summary")) ?? "", /^\d+ rows$/);
      // The same link without a value shows the form, not an empty result.
      await page.goto(`${base}/demo/trees_by_species`);
      assert.equal(await page.locator("table.rows-and-columns").count(), 0);
      assert.equal(await page.locator(".zero-results").count(), 0);
      // Custom SQL with a parameter behaves the same way.
      const sql = encodeURIComponent("select count(*) as n from trees where condition = :c");
      await page.goto(`${base}/demo?sql=${sql}`);
      assert.equal(await page.locator(".zero-results").count(), 0);
      await page.goto(`${base}/demo?sql=${sql}&c=dead`);
      assert.deepEqual(await columnValues(page, "n"), ["216"]);
    },
    uiService,
  );

  browserTest(`${screen.name}: a heading click sorts by that column alone`, async (page, base) => {
    await useScreen(page, screen);
    await page.goto(`${base}/demo/trees?_sort_desc=height_m`);
    await page.locator("th[data-column=condition] > a").click();
    await page.waitForURL((url) => url.search === "?_sort=condition");
    assert.match((await textOf(page, ".table-summary")) ?? "", /sorted by condition$/);
    assert.equal(await page.locator("th[aria-sort]").getAttribute("data-column"), "condition");
    assert.equal(await page.locator("th[data-column=height_m] .sort-mark").count(), 0);
  }, uiService);

  browserTest(`${screen.name}: the column menu's actions change the URL`, async (page, base) => {
    await useScreen(page, screen);
    const choose = async (column: string, item: string) => {
      const button = page.getByRole("button", { name: `Column options: ${column}` });
      // The keyboard path: focus the button, open with the arrow key, move to the item.
      await button.focus();
      await page.keyboard.press("ArrowDown");
      const menu = page.getByRole("menu");
      assert.ok(await menu.isVisible());
      const items = await menu.getByRole("menuitem").allInnerTexts();
      const index = items.indexOf(item);
      assert.ok(index >= 0, `${item} in ${items.join(" | ")}`);
      for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
      assert.equal(await page.evaluate<string>("document.activeElement.textContent"), item);
      await page.keyboard.press("Enter");
    };
    await page.goto(`${base}/demo/trees?_sort=id`);
    await choose("height_m", "Sort descending");
    await page.waitForURL((url) => url.search === "?_sort_desc=height_m");
    await choose("condition", "Add as next sort key");
    await page.waitForURL(/_sort_desc=height_m&_sort=condition$/);
    assert.match((await textOf(page, "th[data-column=condition]")) ?? "", /▲2/);
    await choose("condition", "Facet by this column");
    await page.waitForURL(/_facet=condition$/);
    assert.equal(await page.locator(".facet[data-column=condition]").count(), 1);
    await choose("notes", "Show only rows with a value");
    await page.waitForURL(/notes__notblank=1$/);
    assert.match(
      (await textOf(page, ".table-summary")) ?? "",
      /^200 rows where notes is not blank/,
    );
    await choose("tags", "Hide this column");
    await page.waitForURL(/_nocol=tags$/);
    assert.equal(await page.locator("th[data-column=tags]").count(), 0);
    assert.match((await textOf(page, ".hidden-columns-note")) ?? "", /1 column hidden: tags/);
    await choose("address", "Show all columns");
    await page.waitForURL((url) => !url.search.includes("_nocol"));
    assert.equal(await page.locator("th[data-column=tags]").count(), 1);
    assert.match(where(page), /notes__notblank=1/, "other choices are kept");
    // "Filter on this column…" sets up the filter form instead of leaving the page.
    await choose("planted", "Filter on this column…");
    assert.equal(
      await page.locator(".filter-row-new select[name=_filter_column]").inputValue(),
      "planted",
    );
    assert.equal(await page.evaluate<string>("document.activeElement.name"), "_filter_op");
    // Escape closes the menu and gives focus back to its button.
    await page.getByRole("button", { name: "Column options: id" }).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Escape");
    assert.equal(await page.getByRole("menu").count(), 0);
    assert.equal(
      await page.evaluate<string>("document.activeElement.getAttribute('aria-label')"),
      "Column options: id",
    );
  }, uiService);
}

browserTest(
  "dropdown menus close on Escape, on a click elsewhere and when another opens",
  async (page, base) => {
    await page.goto(`${base}/demo/trees`);
    const isOpen = async (menu: string) =>
      await page.evaluate(`document.querySelector("details.${menu}").open`);
    const summary = (menu: string) => page.locator(`details.${menu} > summary`).first();
    await summary("export-menu").click();
    assert.equal(await isOpen("export-menu"), true);
    await page.keyboard.press("Escape");
    assert.equal(await isOpen("export-menu"), false);
    // Focus goes back to the menu's button, as it does from the column menu.
    assert.equal(
      await page.evaluate(
        `document.activeElement === document.querySelector(".export-menu summary")`,
      ),
      true,
    );
    await summary("export-menu").click();
    await summary("actions-menu").click();
    assert.equal(await isOpen("export-menu"), false, "opening another menu closes the first");
    assert.equal(await isOpen("actions-menu"), true);
    await page.locator("h1").click();
    assert.equal(await isOpen("actions-menu"), false, "a click elsewhere closes it");
    // A click on the menu's own options leaves it open.
    await summary("export-menu").click();
    await page.getByLabel("Download as a file").uncheck();
    assert.equal(await isOpen("export-menu"), true);
  },
  uiService,
);
