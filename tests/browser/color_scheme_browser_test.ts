import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { shopService } from "../fixtures/shop.ts";

/** Relative luminance (WCAG) of a computed `rgb(…)` / `rgba(…)` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Computed `color` and `background-color` of the first element matching `selector`. */
function colors(page: Page, selector: string): Promise<{ color: string; background: string }> {
  // A string, so the test files need no DOM type library.
  return page.evaluate<{ color: string; background: string }>(
    `(() => { const e = document.querySelector(${
      JSON.stringify(selector)
    }); if (!e) throw new Error("missing " + ${
      JSON.stringify(selector)
    } + " in " + location.href + " " + document.title); const s = getComputedStyle(e);
      return { color: s.color, background: s.backgroundColor }; })()`,
  );
}

const TABLE = "/shop/products?_facet=category_id&price__gt=1";

browserTest(
  "dark colour scheme: dark page, light text, every part readable",
  async (page, base) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${base}${TABLE}`);
    const body = await colors(page, "body");
    assert.ok(luminance(body.background) < 0.05, `dark body background, got ${body.background}`);
    assert.ok(luminance(body.color) > 0.6, `light body text, got ${body.color}`);
    assert.ok(contrast(body.color, body.background) >= 7, "body text contrast");
    // The sticky header row, form fields, facet cards and the filter box follow the palette.
    for (
      const selector of ["table.rows-and-columns th", "input[type=search]", ".facet", ".filters"]
    ) {
      const { color, background } = await colors(page, selector);
      assert.ok(luminance(background) < 0.05, `${selector} background is dark: ${background}`);
      assert.ok(contrast(color, background) >= 4.5, `${selector} text contrast`);
    }
    // Quieter text still meets WCAG AA on the page background.
    for (const selector of [".facet-count", ".metadata-links", "a"]) {
      const { color } = await colors(page, selector);
      assert.ok(contrast(color, body.background) >= 4.5, `${selector} contrast: ${color}`);
    }
  },
  () => shopService({ settings: { sql_time_limit_ms: 30_000, facet_time_limit_ms: 30_000 } }),
);

browserTest("light colour scheme: light page, dark text", async (page, base) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`${base}${TABLE}`);
  const body = await colors(page, "body");
  assert.ok(luminance(body.background) > 0.9, `light body background, got ${body.background}`);
  assert.ok(luminance(body.color) < 0.05, `dark body text, got ${body.color}`);
  for (const selector of [".facet-count", ".metadata-links", "a"]) {
    const { color } = await colors(page, selector);
    assert.ok(contrast(color, body.background) >= 4.5, `${selector} contrast: ${color}`);
  }
}, () => shopService({ settings: { sql_time_limit_ms: 30_000, facet_time_limit_ms: 30_000 } }));

browserTest("flash messages keep their colours and contrast in dark mode", async (page, base) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${base}/-/messages`);
  await page.fill("#message-text", "Saved");
  await page.selectOption("#message-type", "all");
  await page.click("form.stacked-form button[type=submit]");
  await page.waitForSelector(".message-error");
  const backgrounds = new Set<string>();
  for (const type of ["info", "warning", "error"]) {
    const { color, background } = await colors(page, `.message-${type}`);
    backgrounds.add(background);
    assert.ok(luminance(background) < 0.05, `${type} message background is dark: ${background}`);
    assert.ok(contrast(color, background) >= 7, `${type} message contrast`);
  }
  assert.equal(backgrounds.size, 3, "each message type has its own tint");
}, () => shopService({ settings: { sql_time_limit_ms: 30_000, facet_time_limit_ms: 30_000 } }));

browserTest("form fields and menu buttons have 3:1 borders in both schemes", async (page, base) => {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${base}${TABLE}`);
    for (
      const [selector, around] of [
        ["input[type=search]", ".filters"],
        [".filter-row-new select", ".filters"],
        [".export-menu summary", "body"],
      ]
    ) {
      const border = await page.evaluate<string>(
        `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).borderTopColor`,
      );
      const { background } = await colors(page, around);
      assert.ok(
        contrast(border, background) >= 3,
        `${scheme}: ${selector} border ${border} on ${background}`,
      );
    }
  }
}, () => shopService({ settings: { sql_time_limit_ms: 30_000, facet_time_limit_ms: 30_000 } }));
