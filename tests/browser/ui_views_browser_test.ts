/**
 * The built-in visualisations on a wide and a phone screen, light and dark: the SQL editor
 * completes a column name and runs with Ctrl+Enter, "View and edit SQL" opens a table's query in
 * it, a chart is drawn from the demo's rows and from an aggregate query, and the trees are
 * mapped in clusters (no tiles: tests use no network) with points that open their row.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { columnValues, textOf, typeSql } from "./pages.ts";
import { backgroundLuminance, SCREENS, uiService, unreachable, useScreen } from "./ui_fixture.ts";

/** Waits until Leaflet has finished animating a zoom and the clusters have settled. */
async function mapSettled(page: import("playwright-core").Page): Promise<void> {
  // Polled with evaluate: the page's CSP forbids the eval that waitForFunction uses.
  for (let tries = 0; tries < 100; tries++) {
    await page.waitForTimeout(150);
    const moving = await page.evaluate<boolean>(
      `Boolean(document.querySelector(".leaflet-zoom-anim, .leaflet-cluster-anim, .leaflet-pan-anim"))`,
    );
    if (!moving) return;
  }
}

/** Index of a single point well inside the map's frame, or -1. */
function pointInView(page: import("playwright-core").Page): Promise<number> {
  return page.evaluate<number>(`(() => {
    const map = document.querySelector(".map").getBoundingClientRect();
    return [...document.querySelectorAll(".map-dot")].findIndex((dot) => {
      const box = dot.getBoundingClientRect();
      return box.left > map.left + 40 && box.right < map.right - 40 &&
        box.top > map.top + 40 && box.bottom < map.bottom - 40;
    });
  })()`);
}

/** The text of the first CodeMirror editor on the page. */
function editorText(page: import("playwright-core").Page): Promise<string> {
  return page.evaluate<string>("globalThis.vitrineEditors[0].state.doc.toString()");
}

for (const screen of SCREENS) {
  browserTest(`${screen.name}: the SQL editor completes a column and runs`, async (page, base) => {
    await useScreen(page, screen);
    await page.goto(`${base}/demo`);
    const editor = page.locator(".cm-content");
    assert.ok(await editor.isVisible(), "CodeMirror replaced the text box");
    assert.equal(await page.locator("textarea[name=sql]").isVisible(), false);
    assert.equal(await editor.getAttribute("aria-label"), "Custom SQL query");
    await typeSql(page, "select id, heigh");
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "height_m" });
    await option.first().waitFor();
    // CodeMirror ignores Enter for 75 ms after the list opens (no accidental picks).
    await page.waitForTimeout(200);
    await page.keyboard.press("Enter");
    assert.equal(await editorText(page), "select id, height_m");
    await page.keyboard.insertText(
      " from trees where species_id = 3 order by height_m desc limit 2",
    );
    // Highlighting: keywords carry their own token class.
    assert.ok(await page.locator(".cm-content .tok-keyword", { hasText: "select" }).count() > 0);
    // Format SQL lays the query out on lines; Ctrl+Enter runs it.
    await page.getByRole("button", { name: "Format SQL" }).click();
    assert.match(await editorText(page), /^select\n\s+id,\n\s+height_m\nfrom\n\s+trees\n/);
    await editor.click();
    await page.keyboard.press("Control+Enter");
    await page.waitForURL(/sql=select/);
    assert.deepEqual((await columnValues(page, "height_m")).map(Number), [30, 29]);
    // The result page keeps the query in the editor, with the editor's dark or light surface.
    assert.match(await editorText(page), /from\n\s+trees/);
    assert.equal(
      (await backgroundLuminance(page, ".cm-editor")) < 0.05,
      screen.scheme === "dark",
    );
    assert.deepEqual(await unreachable(page), []);
  }, uiService);

  browserTest(`${screen.name}: "View and edit SQL" opens the table's query`, async (page, base) => {
    await useScreen(page, screen);
    await page.goto(`${base}/demo/trees?condition=dead&_sort_desc=height_m&_size=5`);
    const firstIds = await columnValues(page, "id");
    await page.getByRole("link", { name: "View and edit SQL" }).click();
    await page.waitForURL(/\/demo\?sql=/);
    const sql = await editorText(page);
    assert.match(sql, /from trees where "?condition"? = :p0 order by height_m desc/i);
    assert.equal(await page.getByLabel("p0").inputValue(), "dead");
    // The query ran with its parameter: the same rows as the table page.
    assert.deepEqual((await columnValues(page, "id")).slice(0, 5), firstIds);
  }, uiService);

  browserTest(
    `${screen.name}: charts of the trees and of an aggregate query`,
    async (page, base) => {
      await useScreen(page, screen);
      await page.goto(`${base}/demo/trees`);
      const toggle = page.getByRole("button", { name: "Chart" });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      const figure = page.locator(".chart-figure svg").first();
      await figure.waitFor();
      // Planting dates against heights: dates repeat, so the suggestion is a scatter plot.
      assert.equal(await page.locator(".chart-controls [name=x]").inputValue(), "planted");
      assert.equal(await page.locator(".chart-controls [name=y]").inputValue(), "height_m");
      assert.equal(await page.locator(".chart-controls [name=type]").inputValue(), "scatter");
      assert.equal(await page.locator(".chart-figure svg circle").count(), 100);
      assert.match(
        (await textOf(page, ".chart-note")) ?? "",
        /^Scatter chart of height_m by planted, from the 100 rows on this page\.$/,
      );
      // Choosing a category for x suggests bars: trees per condition.
      await page.locator(".chart-controls [name=x]").selectOption("condition");
      await page.locator(".chart-controls [name=y]").selectOption("(number of rows)");
      assert.equal(await page.locator(".chart-controls [name=type]").inputValue(), "bar");
      assert.equal(await page.locator(".chart-figure svg rect").count(), 4);
      assert.match(await page.locator(".chart-download").getAttribute("href") ?? "", /^blob:/);
      assert.ok(await page.locator(".chart-combine").isHidden(), "counts need no combining");
      // Bars of a number whose categories repeat combine the values, and say how.
      await page.locator(".chart-controls [name=y]").selectOption("height_m");
      await page.locator(".chart-controls [name=type]").selectOption("bar");
      assert.ok(await page.locator(".chart-combine").isVisible());
      assert.equal(await page.locator(".chart-figure svg rect").count(), 4);
      assert.match((await textOf(page, ".chart-note")) ?? "", /^Bar chart of sum of height_m by/);
      await page.locator(".chart-controls [name=combine]").selectOption("mean");
      assert.match(
        (await textOf(page, ".chart-note")) ?? "",
        /^Bar chart of average of height_m by condition,/,
      );
      const tallest = Math.max(
        ...(await page.locator(".chart-figure svg g[aria-label=bar] rect").evaluateAll((bars) =>
          bars.map((bar) => bar.getBoundingClientRect().height)
        )),
      );
      assert.ok(tallest > 0);
      // An aggregate query charts as bars straight away.
      const sql = "select neighborhoods.name as neighbourhood, count(*) as trees from trees " +
        "join neighborhoods on neighborhoods.id = trees.neighborhood_id group by 1";
      await page.goto(`${base}/demo?sql=${encodeURIComponent(sql)}#chart`);
      await page.locator(".chart-figure svg").first().waitFor();
      assert.equal(await page.locator(".chart-controls [name=type]").inputValue(), "bar");
      assert.equal(await page.locator(".chart-figure svg rect").count(), 8);
      const labels = await page.locator(".chart-figure svg text").allTextContents();
      assert.ok(labels.includes("Old Mill") && labels.includes("Riverside"));
      assert.deepEqual(await unreachable(page), []);
    },
    uiService,
  );

  browserTest(
    `${screen.name}: the trees on a clustered map; a point opens its row`,
    async (page, base) => {
      await useScreen(page, screen);
      await page.goto(`${base}/demo/trees`);
      const panel = page.locator(".map-panel[data-ready]");
      await panel.waitFor();
      // Every tree, from all fifteen pages of the table, grouped into clusters.
      assert.equal(await panel.getAttribute("data-points"), "1500");
      assert.equal(await textOf(page, ".map-note"), "1,500 rows on the map.");
      // The Export menu opens above the map's zoom buttons: its links take the clicks.
      await page.locator(".export-menu summary").first().click();
      const covered = await page.locator(".export-panel a").evaluateAll((links) =>
        links.filter((link) => {
          link.scrollIntoView({ block: "center" });
          const box = link.getBoundingClientRect();
          if (!box.width) return false;
          // deno-lint-ignore no-explicit-any
          const doc = (link as any).ownerDocument;
          const top = doc.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
          return top !== link && !link.contains(top);
        }).map((link) => link.textContent)
      );
      assert.deepEqual(covered, []);
      await page.locator(".export-menu summary").first().click();
      const clusters = await page.locator(".map-cluster").allInnerTexts();
      assert.ok(clusters.length > 1, "several clusters");
      const clustered = clusters.reduce((sum, text) => sum + Number(text.replace(/,/g, "")), 0);
      assert.ok(clustered > 1000, `most trees are in clusters: ${clustered}`);
      // Zoomed in, single points show; one opens a popup whose link goes to the row.
      let inside = -1;
      for (let zoom = 0; zoom < 8 && inside < 0; zoom++) {
        await page.locator(".leaflet-control-zoom-in").click();
        await mapSettled(page);
        if (zoom >= 3) inside = await pointInView(page);
      }
      assert.ok(inside >= 0, "a single point in view");
      const dot = page.locator(".map-dot").nth(inside);
      const title = await dot.getAttribute("title");
      const link = page.locator(".map-popup a.map-row-link");
      // A click that lands while Leaflet still moves things (a zoom, the clusters, the pan that
      // brings an opened popup into view) is lost; a person clicks again.
      const rowPage = /\/demo\/trees\/\d+$/;
      let popupTitle: string | null = null;
      for (let attempt = 0; attempt < 5 && !rowPage.test(page.url()); attempt++) {
        if (!(await link.isVisible())) {
          await dot.click({ timeout: 5_000 }).catch(() => {});
          await link.waitFor({ timeout: 5_000 }).catch(() => {});
          await mapSettled(page);
          continue;
        }
        popupTitle = await textOf(page, ".map-popup strong");
        await link.click({ timeout: 5_000 }).catch(() => {});
        await page.waitForURL(rowPage, { timeout: 5_000 }).catch(() => {});
      }
      assert.equal(popupTitle, title);
      assert.match(page.url(), rowPage);
      assert.deepEqual(await columnValues(page, "address"), [title]);
      // No matching rows: a note, and no empty map above the table.
      await page.goto(`${base}/demo/trees?height_m__gt=1000`);
      await page.locator(".map-panel[data-ready]").waitFor();
      assert.equal(await textOf(page, ".map-note"), "0 rows on the map.");
      assert.ok(await page.locator(".map-panel .map").isHidden());
    },
    uiService,
  );
}

browserTest("settings switch the built-in visualisations off", async (page, base) => {
  await page.goto(`${base}/demo/trees`);
  assert.equal(await page.locator(".column-menu-button").count(), 0);
  assert.equal(await page.locator(".chart-toggle, .map-panel").count(), 0);
  assert.equal(await page.locator("script[src*='vendor'], link[href*='vendor']").count(), 0);
  await page.goto(`${base}/demo`);
  assert.equal(await page.locator(".cm-editor").count(), 0);
  assert.ok(await page.locator("textarea[name=sql]").isVisible(), "the plain text box remains");
}, () => uiService({ column_menus: false, charts: false, maps: false, sql_editor: false }));
