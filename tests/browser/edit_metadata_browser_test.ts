/** Editing a table's metadata in the browser: menu link, form, and the page showing it at once. */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";

/** The test's service (browserTest makes it; the sign-in cookie is signed with its secret). */
let svc: Service;

browserTest(
  "edit metadata: from the table menu, the saved title and column note show on the table page",
  async (page, base) => {
    await page.context().addCookies([{
      name: "ds_actor",
      value: encodeActorCookie(svc.signer, { id: "editor" }),
      url: base,
    }]);
    await page.goto(`${base}/shop/products`);
    await page.locator(".actions-menu summary").click();
    await page.getByRole("link", { name: "Edit metadata" }).click();
    await page.waitForURL(`${base}/shop/products/-/edit-metadata`);
    await page.getByLabel("Title").fill("Everything we sell");
    await page.getByLabel("Description", { exact: true }).fill("One row per product.");
    await page.getByLabel("Description of price").fill("Price in euros");
    await page.getByLabel("Unit of price").fill("EUR");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`${base}/shop/products`);
    assert.match(await page.locator("body").innerText(), /Everything we sell/);
    assert.match(await page.locator("body").innerText(), /One row per product\./);
    assert.equal(
      await page.locator('th[data-column="price"]').getAttribute("title"),
      "Price in euros",
    );
    // The form shows what was saved.
    await page.goto(`${base}/shop/products/-/edit-metadata`);
    assert.equal(await page.getByLabel("Unit of price").inputValue(), "EUR");
  },
  () =>
    svc = new Service({
      files: [buildShopDb()],
      metadata: { ...SHOP_METADATA, permissions: { "edit-metadata": { id: "editor" } } },
    }),
);
