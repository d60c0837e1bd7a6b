import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

// The create-table page, for an actor who may create tables in shop and fill them.
const CREATOR = { id: "creator" };

let current: Service;
function creatorService(): Service {
  const permissions = { "create-table": CREATOR, "insert-row": CREATOR };
  current = shopService({ metadata: { databases: { shop: { permissions } } } });
  return current;
}

/** What the `sqlite3` command line prints for `command` on the shop file. */
function sqlite3(command: string): string {
  const path = current.get_database("shop").path!;
  const out = new Deno.Command("sqlite3", { args: [path, command] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function openPage(page: Page, base: string, width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, CREATOR), url: base },
  ]);
  await page.goto(`${base}/-/create-table?database=shop`);
}

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `create table at ${width}x${height}: a compound primary key and foreign keys, previewed first`,
    async (page, base) => {
      await openPage(page, base, width, height);
      await page.getByLabel("Table name").fill("shipments");
      const columns = page.locator(".create-column");
      const order = columns.nth(0);
      await order.getByLabel("Name").fill("order_id");
      await order.getByLabel("primary key").check();
      await order.getByLabel("NOT NULL").check();
      await order.getByLabel("References").selectOption({ label: "orders.id" });
      await page.getByRole("button", { name: "Add column" }).click();
      const product = columns.nth(1);
      await product.getByLabel("Name").fill("product_id");
      await product.getByLabel("Type").selectOption("integer");
      await product.getByLabel("primary key").check();
      await product.getByLabel("References").selectOption({ label: "products.id" });
      await page.getByRole("button", { name: "Add column" }).click();
      const quantity = columns.nth(2);
      await quantity.getByLabel("Name").fill("quantity");
      await quantity.getByLabel("Type").selectOption("integer");
      await quantity.getByLabel("NOT NULL").check();
      await quantity.getByLabel("Default").fill("1");
      await page.getByRole("button", { name: "Add column" }).click();
      await columns.nth(3).getByLabel("Name").fill("contact");
      await columns.nth(3).getByLabel("Type").selectOption("column:email");

      await page.getByRole("button", { name: "Preview SQL" }).click();
      await page.locator(".create-preview").waitFor();
      const schema = "CREATE TABLE [shipments] (\n" +
        "   [order_id] TEXT NOT NULL,\n" +
        "   [product_id] INTEGER,\n" +
        "   [quantity] INTEGER NOT NULL DEFAULT 1,\n" +
        "   [contact] TEXT,\n" +
        "   PRIMARY KEY ([order_id], [product_id]),\n" +
        "   FOREIGN KEY ([order_id]) REFERENCES [orders]([id]),\n" +
        "   FOREIGN KEY ([product_id]) REFERENCES [products]([id])\n)";
      assert.equal(await page.locator(".create-statements").textContent(), schema + ";");
      assert.equal(sqlite3(".schema shipments"), "", "the preview created nothing");
      assert.equal(await overflowsHorizontally(page), false);

      await page.getByRole("button", { name: "Create table" }).click();
      await page.waitForURL(`${base}/shop/shipments`);
      assert.equal(await textOf(page, ".messages .message-info"), "Table shipments created");
      assert.equal(sqlite3(".schema shipments"), schema + ";\n");
      // The email column type was set with it.
      const types = await page.request.get(`${base}/shop/shipments.json?_extra=column_types`);
      assert.deepEqual((await types.json()).column_types, {
        contact: { type: "email", config: null },
      });
    },
    creatorService,
  );

  browserTest(
    `create table at ${width}x${height}: from pasted rows, types inferred and edited, rows inserted`,
    async (page, base) => {
      await openPage(page, base, width, height);
      await page.getByLabel("Table name").fill("parts");
      await page.getByText("Start from pasted rows").click();
      // One column is one column.
      await page.getByLabel("Pasted rows").fill("code\n007\n");
      await page.getByRole("button", { name: "Read columns" }).click();
      await page.getByText("1 column and 1 row read.").waitFor();
      await page.getByLabel("Pasted rows").fill(
        "code\tname\tprice\tstock\tadded\n007\tBolt\t1.5\t10\t2024-01-02\n042\tNut\t2\t\t2024-02-29\n",
      );
      await page.getByRole("button", { name: "Read columns" }).click();
      await page.getByText("5 columns and 2 rows read.").waitFor();
      const columns = page.locator(".create-column");
      assert.equal(await columns.count(), 5);
      const read = [];
      for (let i = 0; i < 5; i++) {
        read.push([
          await columns.nth(i).getByLabel("Name").inputValue(),
          await columns.nth(i).getByLabel("Type").inputValue(),
        ]);
      }
      assert.deepEqual(read, [
        ["code", "text"],
        ["name", "text"],
        ["price", "float"],
        ["stock", "integer"],
        // ISO dates: text, with the date column type.
        ["added", "column:date"],
      ]);
      await columns.nth(0).getByLabel("primary key").check();
      await columns.nth(1).getByLabel("Name").fill("label");
      await columns.nth(1).getByLabel("NOT NULL").check();
      await columns.nth(2).getByLabel("Type").selectOption("real");
      assert.equal(await overflowsHorizontally(page), false);
      await page.getByRole("button", { name: "Preview SQL" }).click();
      await page.getByText("Then 2 rows are inserted, in the same transaction.").waitFor();
      await page.getByRole("button", { name: "Create table" }).click();
      await page.waitForURL(`${base}/shop/parts`);
      assert.equal(
        sqlite3(".schema parts"),
        "CREATE TABLE [parts] (\n   [code] TEXT PRIMARY KEY,\n   [label] TEXT NOT NULL,\n" +
          "   [price] REAL,\n   [stock] INTEGER,\n   [added] TEXT\n);\n",
      );
      assert.equal(
        sqlite3("select code, label, price, typeof(price), quote(stock) from parts order by code"),
        "007|Bolt|1.5|real|10\n042|Nut|2.0|real|NULL\n",
      );
      assert.equal(sqlite3("select group_concat(typeof(added)) from parts"), "text,text\n");
    },
    creatorService,
  );
}
