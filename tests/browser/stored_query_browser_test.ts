import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { columnValues, typeSql } from "./pages.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";

/** The test's service (browserTest makes it; the sign-in cookie is signed with its secret). */
let svc: Service;

browserTest(
  "stored queries: save from the SQL editor, share, find it on the database page, delete it",
  async (page, base) => {
    // Signed in as alice (the cookie a login would set).
    await page.context().addCookies([{
      name: "ds_actor",
      value: encodeActorCookie(svc.signer, { id: "alice" }),
      url: base,
    }]);
    await page.goto(`${base}/shop`);
    await typeSql(page, "select name from products where price < 5 order by name");
    await page.getByRole("button", { name: "Run SQL" }).click();
    await page.waitForURL(/sql=/);
    await page.getByRole("link", { name: "Save this query" }).click();
    await page.waitForURL(/\/shop\/-\/queries\/store/);
    assert.match(await page.getByLabel("SQL").inputValue(), /price < 5/);
    // The form's text fields wear the fields' style (they were bare inputs without a type).
    const heights = await page.evaluate<string[]>(
      `[...document.querySelectorAll("#query-name, #query-title")]
        .map((field) => getComputedStyle(field).minHeight)`,
    );
    assert.deepEqual(heights, ["36px", "36px"]);
    await page.getByLabel("Name").fill("cheap");
    await page.getByLabel("Title").fill("Cheap things");
    await page.getByLabel("Everyone who can see this database").check();
    await page.getByRole("button", { name: "Save query" }).click();
    await page.waitForURL(`${base}/shop/cheap`);
    assert.deepEqual(await columnValues(page, "name"), ["Tea towel", "Wooden spoon"]);
    await page.goto(`${base}/shop`);
    await page.getByRole("link", { name: "Cheap things" }).click();
    await page.waitForURL(`${base}/shop/cheap`);
    await page.getByRole("link", { name: "Delete query" }).click();
    await page.getByRole("button", { name: "Delete this query" }).click();
    await page.waitForURL(`${base}/shop`);
    assert.equal(await page.getByRole("link", { name: "Cheap things" }).count(), 0);
  },
  () =>
    svc = new Service({
      files: [buildShopDb()],
      metadata: { ...SHOP_METADATA, permissions: { "store-query": { id: "alice" } } },
    }),
);
