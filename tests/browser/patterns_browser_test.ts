/**
 * `/-/patterns` in Chromium: the portfolio renders without a console error or a CSP violation,
 * in the site's CSS, and the pages' scripts work on its samples — the code editor replaces the
 * SQL box, the column menus open on the rows table, the filter form gets "Add filter", and the
 * sample row restacks as a record.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { referenceService } from "../fixtures/reference.ts";

browserTest("the pattern portfolio renders cleanly and its samples work", async (page, base) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /Content Security Policy/i.test(message.text())) {
      problems.push(message.text());
    }
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  const response = await page.goto(`${base}/-/patterns`);
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self' 'nonce-/);
  await page.waitForLoadState("networkidle");

  // The code editor (an ES module with the nonce) took over the SQL box.
  await page.waitForSelector("#pattern-sql-box .cm-editor", { timeout: 15_000 });
  // Column menus on the rows sample: one per heading; one opens a menu of links.
  const buttons = page.locator("#pattern-rows .column-menu-button");
  assert.equal(await buttons.count(), 7);
  await page.locator("#pattern-rows th[data-column=price] .column-menu-button").click();
  const items = await page.locator("[role=menu] [role=menuitem]").allInnerTexts();
  assert.ok(items.includes("Sort ascending"), items.join(", "));
  await page.keyboard.press("Escape");
  // table.js: the filter form offers "Add filter".
  assert.equal(await page.locator("#pattern-filters button.add-filter").isVisible(), true);
  // app.css: an error message is tinted, and the sample row reads as label/value pairs.
  const style = (selector: string, property: string, pseudo = "") =>
    page.evaluate<string>(
      `getComputedStyle(document.querySelector(${JSON.stringify(selector)}), ${
        JSON.stringify(pseudo || null)
      }).${property}`,
    );
  const tint = await style("#pattern-messages .message-error", "backgroundColor");
  assert.match(tint, /^rgb/);
  assert.notEqual(tint, "rgba(0, 0, 0, 0)");
  assert.match(await style("#pattern-row td[data-column=name]", "content", "::before"), /^"name"/);

  assert.deepEqual(problems, []);
}, () => referenceService());
