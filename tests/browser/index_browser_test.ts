import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { shopService } from "../fixtures/shop.ts";

browserTest("the index page lists the shop database and its tables", async (page, base) => {
  await page.goto(`${base}/`);
  assert.equal(await page.title(), "Corner Shop");
  const heading = await page.textContent("h1");
  assert.equal(heading?.trim(), "Corner Shop");
  const link = page.locator('a[href="/shop"]').first();
  assert.equal((await link.textContent())?.trim(), "shop");
  await link.click();
  await page.waitForURL(`${base}/shop`);
}, () => shopService());
