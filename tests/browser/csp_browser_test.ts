/**
 * The Content-Security-Policy in a real browser: on the demo's pages — index, database (SQL
 * editor), table (map, chart, column menus), row, query — Chromium reports no violation, and
 * the scripts the policy must let through did run: the nonced inline script of the map, the
 * editor, the table's column menus. A script injected without the nonce does not run.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { demoService } from "../fixtures/demo.ts";

/** The demo with map tiles from an unreachable host: the policy must allow their origin. */
const tiledDemo = () =>
  demoService({ map_tile_url: "https://{s}.tiles.example.org/{z}/{x}/{y}.png" });

/** Collects the CSP violations the page reports, as the browser words them. */
function watchViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

browserTest("no page of the demo breaks its own Content-Security-Policy", async (page, base) => {
  const violations = watchViolations(page);
  const visit = async (path: string) => {
    const response = await page.goto(`${base}${path}`);
    assert.equal(response?.status(), 200, path);
    assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self' 'nonce-/);
    await page.waitForLoadState("networkidle");
  };
  await visit("/");
  await visit("/demo");
  await page.waitForSelector(".cm-editor", { timeout: 10_000 });
  await visit("/demo/trees");
  // The map's settings arrive through an inline script (extra_body_script): it carries the nonce.
  assert.equal(await page.evaluate("typeof globalThis.vitrineMap"), "object");
  await visit("/demo/trees/1");
  await visit(
    `/demo/-/query?sql=${encodeURIComponent("select id, species_id from trees limit 5")}`,
  );
  await page.waitForSelector(".cm-editor", { timeout: 10_000 });
  await visit("/demo/trees_by_species?species=Oak");
  assert.deepEqual(violations, []);
}, tiledDemo);

browserTest("markup injected without the nonce does not run", async (page, base) => {
  const violations = watchViolations(page);
  await page.goto(`${base}/demo/trees`);
  await page.evaluate(`(() => {
    const div = document.createElement("div");
    div.innerHTML = '<img src="x" onerror="globalThis.injected = 1">';
    document.body.append(div);
    const script = document.createElement("script");
    script.textContent = "globalThis.injected = 2";
    document.body.append(script);
  })()`);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate("globalThis.injected ?? null"), null);
  assert.ok(violations.length >= 2, violations.join("\n"));
}, tiledDemo);
