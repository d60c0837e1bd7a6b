import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { bodyClasses, columnValues, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";

browserTest(
  "writable canned query: submit, see the flash once, find the row",
  async (page, base) => {
    await page.goto(`${base}/shop/add_log_entry`);
    assert.deepEqual(await bodyClasses(page), ["query", "db-shop", "query-add_log_entry"]);
    assert.equal(await page.title(), "add_log_entry");
    await page.getByLabel("message").fill("restocked trowels");
    await page.getByRole("button", { name: "Run write query" }).click();
    await page.waitForURL(`${base}/shop/add_log_entry`);
    assert.equal(await textOf(page, ".messages .message-info"), "Query executed, 1 row affected");
    await page.reload();
    assert.equal(await page.locator(".messages").count(), 0, "the message is shown only once");
    await page.goto(`${base}/shop/log`);
    assert.ok((await columnValues(page, "message")).includes("restocked trowels"));
  },
  () => shopService(),
);

browserTest(
  "CSRF: a form POST without the token cookie fails with the message",
  async (page, base) => {
    await page.goto(`${base}/shop/add_log_entry`);
    // Lose the token cookie but keep another one, as a cross-site form post would.
    const context = page.context();
    await context.clearCookies();
    await context.addCookies([{ name: "other", value: "1", url: base }]);
    await page.getByLabel("message").fill("forged");
    await page.getByRole("button", { name: "Run write query" }).click();
    await page.waitForLoadState();
    assert.equal(await page.title(), "CSRF check failed");
    assert.equal(
      await textOf(page, ".error-message"),
      "form-urlencoded POST field did not match cookie",
    );
    await page.goto(`${base}/shop/log`);
    assert.ok(!(await columnValues(page, "message")).includes("forged"));
  },
  () => shopService(),
);

browserTest("/-/messages adds a flash message shown on the next page", async (page, base) => {
  await page.goto(`${base}/-/messages`);
  assert.equal(await page.title(), "Debug messages");
  await page.getByLabel("Message").fill("Hello from the test");
  await page.getByLabel("Type").selectOption("WARNING");
  await page.getByRole("button", { name: "Add message" }).click();
  await page.waitForLoadState();
  assert.equal(await textOf(page, ".messages .message-warning"), "Hello from the test");
  await page.goto(`${base}/`);
  assert.equal(await page.locator(".messages").count(), 0);
}, () => shopService());
