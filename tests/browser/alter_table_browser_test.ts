import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

// The alter-table page, for an actor holding alter-table on shop.
const ALTERER = { id: "alterer" };

let current: Service;
function altererService(): Service {
  current = shopService({
    metadata: { databases: { shop: { permissions: { "alter-table": ALTERER } } } },
  });
  return current;
}

function sqlite3(sql: string): string {
  const path = current.get_database("shop").path!;
  const out = new Deno.Command("sqlite3", { args: [path, sql] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, ALTERER), url: base },
  ]);
}

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `alter table at ${width}x${height}: rename and retype a column, preview, apply`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      // A level written with a leading zero, which an INTEGER column stores as 7.
      sqlite3("insert into log values ('imported', '007')");
      const before = sqlite3(".dump log");
      await signIn(page, base);
      await page.goto(`${base}/shop/log`);
      await page.locator(".actions-menu summary").click();
      await page.getByRole("link", { name: "Alter table" }).click();
      await page.waitForURL(`${base}/shop/log/-/alter-table`);
      assert.equal(await page.title(), "Alter table log");
      const level = page.locator(".alter-column", { has: page.locator("[value=level]") });
      await level.getByLabel("Name").fill("severity");
      await level.getByLabel("Type").selectOption("INTEGER");
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".alter-preview").waitFor();
      assert.match((await textOf(page, ".alter-schema"))!, /\[severity\] INTEGER/);
      const statements = (await textOf(page, ".alter-statements"))!;
      assert.match(statements, /^ALTER TABLE \[log\] RENAME COLUMN \[level\] TO \[severity\];/);
      assert.match(statements, /DROP TABLE \[log\]/);
      assert.equal(
        await textOf(page, ".alter-changes"),
        'severity: 1 value will change and cannot be undone from the history, e.g. "007" becomes 7.',
      );
      assert.equal(sqlite3(".dump log"), before, "the preview changed nothing");
      assert.equal(await overflowsHorizontally(page), false);
      await page.getByRole("button", { name: "Apply change" }).click();
      await page.waitForURL(`${base}/shop/log`);
      assert.equal(await textOf(page, ".messages .message-info"), "Table log altered");
      const altered = sqlite3("select sql from sqlite_master where name = 'log'");
      assert.match(altered, /\[severity\] INTEGER/);
      assert.doesNotMatch(altered, /level/, "renamed, not added");
      assert.equal(
        sqlite3("select count(*) from log"),
        before.match(/INSERT INTO/g)?.length.toString() + "\n",
      );
      // A change SQLite refuses is explained on the page and changes nothing.
      await page.goto(`${base}/shop/products/-/alter-table`);
      const name = page.locator(".alter-column", { has: page.locator("[value=name]") });
      await name.getByLabel("Name").fill("price");
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".write-error").waitFor();
      assert.match((await textOf(page, ".write-error"))!, /column price already exists/);
    },
    altererService,
  );
}

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `alter table at ${width}x${height}: set the primary key, add a foreign key and a default, move a column`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      // A table made by another program, with no key yet.
      sqlite3(
        "create table reviews (id integer, product integer, stars integer, note text);" +
          "insert into reviews values (1, 1, 5, 'good'), (2, 2, null, 'fine');",
      );
      await signIn(page, base);
      await page.goto(`${base}/shop/reviews/-/alter-table`);
      const row = (name: string) =>
        page.locator(".alter-column", { has: page.locator(`input[name=name][value=${name}]`) });
      await row("id").getByLabel("primary key").check();
      await row("product").getByLabel("References").selectOption({ label: "products.id" });
      await row("stars").getByLabel("Default").fill("3");
      await row("note").getByRole("button", { name: "Move up" }).click();
      assert.equal(await overflowsHorizontally(page), false);
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".alter-preview").waitFor();
      const schema = (await page.locator(".alter-schema").textContent())!;
      assert.match(schema, /\[id\] INTEGER PRIMARY KEY,\s+\[product\] INTEGER,\s+\[note\] TEXT,/);
      assert.match(schema, /\[stars\] INTEGER DEFAULT 3/);
      assert.match(schema, /FOREIGN KEY \(\[product\]\) REFERENCES \[products\]\(\[id\]\)/);
      assert.match(sqlite3(".schema reviews"), /^CREATE TABLE reviews \(id integer,/);
      await page.getByRole("button", { name: "Apply change" }).click();
      await page.waitForURL(`${base}/shop/reviews`);
      assert.equal(await textOf(page, ".messages .message-info"), "Table reviews altered");
      assert.equal(sqlite3("select sql from sqlite_master where name = 'reviews'"), schema + "\n");
      // (sqlite3's .schema writes a table renamed into place as CREATE TABLE IF NOT EXISTS.)
      assert.match(
        sqlite3(".schema reviews"),
        /FOREIGN KEY \(\[product\]\) REFERENCES \[products\]/,
      );
      assert.equal(
        sqlite3("select id, product, note, quote(stars) from reviews order by id"),
        "1|1|good|5\n2|2|fine|NULL\n",
      );
      assert.equal(
        sqlite3('select "table", "from", "to" from pragma_foreign_key_list(\'reviews\')'),
        "products|product|id\n",
      );
      // The page shows the table as it is now: the key ticked, the reference chosen.
      await page.goto(`${base}/shop/reviews/-/alter-table`);
      assert.equal(await row("id").getByLabel("primary key").isChecked(), true);
      assert.equal(
        await row("product").getByLabel("References").locator("option:checked").textContent(),
        "products.id",
      );
      assert.equal(await row("stars").getByLabel("Default").inputValue(), "3");
      // Dropping the reference is a change of its own.
      await row("product").getByLabel("References").selectOption({ label: "nothing" });
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".alter-preview").waitFor();
      await page.getByRole("button", { name: "Apply change" }).click();
      await page.waitForURL(`${base}/shop/reviews`);
      assert.equal(sqlite3("select count(*) from pragma_foreign_key_list('reviews')"), "0\n");
    },
    altererService,
  );
}

browserTest(
  "the /-/alter endpoint pasted into the browser: a 405 page whose link opens the alter page",
  async (page, base) => {
    await signIn(page, base);
    const response = await page.goto(`${base}/shop/products/-/alter`);
    assert.equal(response?.status(), 405);
    assert.equal(response?.headers()["allow"], "POST, OPTIONS");
    assert.equal(await page.title(), "Method not allowed");
    assert.match(
      (await textOf(page, ".error-message")) ?? "",
      /not a page: it is the write API's endpoint that alters a table, and takes POST requests/,
    );
    await page.locator(".error-hint a").click();
    await page.waitForURL(`${base}/shop/products/-/alter-table`);
    assert.equal(await page.locator("main h1").count(), 1);
    assert.match((await textOf(page, "main h1")) ?? "", /products/);
  },
  altererService,
);
