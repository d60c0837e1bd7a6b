import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { columnValues, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";

// An editor may insert, update and delete rows and drop tables in shop; nobody else may write.
const EDITOR = { id: "editor" };
const WRITES = ["insert-row", "update-row", "delete-row", "drop-table", "create-table"];

let current: Service;
function editorService(): Service {
  current = shopService({
    metadata: {
      databases: {
        shop: { permissions: Object.fromEntries(WRITES.map((action) => [action, EDITOR])) },
      },
    },
  });
  return current;
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
  ]);
}

/** The `products` row with this id, read from the SQLite file itself. */
function productInFile(id: number): Record<string, unknown> | null {
  const conn = Connection.open(current.get_database("shop").path!, { mode: "ro" });
  try {
    const result = conn.query(
      "select name, price, typeof(price) as price_type, notes, typeof(notes) as notes_type, " +
        "category_id from products where id = ?",
      [id],
    );
    const row = result.rows[0];
    return row ? Object.fromEntries(result.columns.map((c, i) => [c, row[i]])) : null;
  } finally {
    conn.close();
  }
}

browserTest(
  "row editing: insert a row from the table page, edit it, delete it",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/products`);
    // The table actions menu offers the write actions the editor holds.
    await page.getByText("Table actions").click();
    await page.getByRole("link", { name: "Insert row" }).click();
    // The menu closes on a link to a part of this page: it would cover what the link opened.
    assert.equal(await page.locator("details.actions-menu").evaluate((m) => m.open), false);
    const insert = page.locator("#insert-row form");
    await insert.getByLabel("name", { exact: true }).fill("Rain barrel");
    await insert.getByLabel("price", { exact: true }).fill("12.0");
    await insert.getByLabel("category_id", { exact: true }).fill("2");
    await insert.getByLabel("notes is NULL").check();
    await insert.getByRole("button", { name: "Insert row" }).click();

    // The new row's page: id 10 was numbered by SQLite.
    await page.waitForURL(`${base}/shop/products/10`);
    assert.equal(await textOf(page, ".messages .message-info"), "1 row inserted");
    assert.deepEqual(productInFile(10), {
      name: "Rain barrel",
      price: 12,
      price_type: "real",
      notes: null,
      notes_type: "null",
      category_id: 2,
    });

    // Edit: an empty notes field is an empty string, not NULL; the price becomes 13.5.
    await page.getByText("Row actions").click();
    await page.getByRole("link", { name: "Edit row" }).click();
    const edit = page.locator("#edit-row form");
    assert.equal(await edit.getByLabel("name", { exact: true }).inputValue(), "Rain barrel");
    assert.equal(await edit.getByLabel("price", { exact: true }).inputValue(), "12.0");
    assert.equal(await edit.getByLabel("notes is NULL").isChecked(), true);
    await edit.getByLabel("notes is NULL").uncheck();
    await edit.getByLabel("price", { exact: true }).fill("13.5");
    await edit.getByRole("button", { name: "Save changes" }).click();
    // The same URL reloads with the message.
    await page.locator(".messages .message-info", { hasText: "Row updated" }).waitFor();
    assert.deepEqual(productInFile(10), {
      name: "Rain barrel",
      price: 13.5,
      price_type: "real",
      notes: "",
      notes_type: "text",
      category_id: 2,
    });
    assert.equal(await textOf(page, "td.col-price"), "13.5");

    // Delete, after confirming in the dialog; Cancel first changes nothing.
    await page.getByRole("button", { name: "Delete row" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this row?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await dialog.isVisible(), false);
    assert.notEqual(productInFile(10), null);
    await page.getByRole("button", { name: "Delete row" }).click();
    await dialog.getByRole("button", { name: "Delete row" }).click();
    await page.waitForURL(`${base}/shop/products`);
    assert.equal(await textOf(page, ".messages .message-info"), "Row 10 deleted");
    assert.equal(productInFile(10), null);
    assert.ok(!(await columnValues(page, "name")).includes("Rain barrel"));
  },
  editorService,
);

browserTest(
  "row editing: a refused write shows SQLite's message and changes nothing",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/categories#insert-row`);
    const insert = page.locator("#insert-row form");
    await insert.getByLabel("id", { exact: true }).fill("1");
    await insert.getByLabel("name", { exact: true }).fill("Duplicate");
    await insert.getByRole("button", { name: "Insert row" }).click();
    const error = insert.locator(".write-error");
    await error.waitFor();
    assert.equal(await error.innerText(), "UNIQUE constraint failed: categories.id");
    assert.deepEqual(await columnValues(page, "name"), ["Kitchen", "Garden", "Tools"]);
  },
  editorService,
);

browserTest(
  "row editing: the form refuses a value its column cannot hold; the server refuses the rest",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/products/1#edit-row`);
    const edit = page.locator("#edit-row form");
    const error = edit.locator(".write-error");
    const price = edit.getByLabel("price", { exact: true });
    // Checked in the page, before any request: the field itself says why.
    await price.fill("abc");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await error.waitFor();
    assert.equal(await error.innerText(), 'price is REAL: "abc" is not a number');
    assert.equal(
      await price.evaluate((input) => (input as { validationMessage: string }).validationMessage),
      'price is REAL: "abc" is not a number',
    );
    await price.fill("35");
    await edit.getByLabel("name is NULL").check();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.getByText("name cannot be NULL").waitFor();
    await edit.getByLabel("name is NULL").uncheck();
    // A category that does not exist: only the server knows, and says which column.
    await edit.getByLabel("category_id", { exact: true }).fill("99999");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.getByText("Column category_id: 99999 matches no id in categories").waitFor();
    assert.deepEqual(productInFile(1), {
      name: "Chef knife",
      price: 34.5,
      price_type: "real",
      notes: "Hand wash only",
      notes_type: "text",
      category_id: 1,
    });
  },
  editorService,
);

browserTest(
  "row editing: a foreign key shows the row it points to and looks others up by label",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/products/1#edit-row`);
    const edit = page.locator("#edit-row form");
    const field = edit.locator('.write-field[data-column="category_id"]');
    assert.equal(
      await textOf(page, '.write-field[data-column="category_id"] [data-fk-label]'),
      "Kitchen",
    );
    // Typing part of a label offers the matching categories, their keys as values.
    const input = edit.getByLabel("category_id", { exact: true });
    await input.fill("ard");
    const option = field.locator("datalist option");
    await option.first().waitFor({ state: "attached" });
    assert.deepEqual(
      await option.evaluateAll((options) =>
        options.map((o) => [(o as unknown as { value: string }).value, o.textContent])
      ),
      [["2", "Garden"]],
    );
    // The key chosen, its label shows; saving stores the key.
    await input.fill("2");
    await field.locator("[data-fk-label]", { hasText: "Garden" }).waitFor();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".messages .message-info", { hasText: "Row updated" }).waitFor();
    assert.equal(productInFile(1)?.category_id, 2);
  },
  editorService,
);

/** The editor's shop with a text-keyed foreign key: suppliers.country_code -> countries.code. */
function textKeyService(): Service {
  const service = editorService();
  const conn = Connection.open(service.get_database("shop").path!, { mode: "rw" });
  try {
    conn.exec(
      "create table countries (code text primary key, name text);" +
        "insert into countries values ('FR', 'France'), ('DE', 'Germany'), ('NL', 'Netherlands');" +
        "create table suppliers (id integer primary key, name text," +
        " country_code text references countries(code));" +
        "insert into suppliers values (1, 'Acme', 'FR');",
    );
  } finally {
    conn.close();
  }
  return service;
}

browserTest(
  "row editing: a text foreign key is one line with the same lookup, and the text key is saved",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/suppliers/1#edit-row`);
    const edit = page.locator("#edit-row form");
    const field = edit.locator('.write-field[data-column="country_code"]');
    assert.equal(
      await textOf(page, '.write-field[data-column="country_code"] [data-fk-label]'),
      "France",
    );
    const input = edit.getByLabel("country_code", { exact: true });
    // A single-line field, not a text area, and no number keypad for a text key.
    assert.deepEqual(
      await input.evaluate((e) => [e.tagName, e.getAttribute("inputmode")]),
      ["INPUT", null],
    );
    // Typing part of a label offers the matching countries, their codes as values.
    await input.fill("erman");
    const option = field.locator("datalist option");
    await option.first().waitFor({ state: "attached" });
    const offered = await option.evaluateAll((options) =>
      options.map((o) => [(o as unknown as { value: string }).value, o.textContent])
    );
    assert.deepEqual(offered, [["DE", "Germany"]]);
    // Picking the suggestion puts its key in the field (what choosing a datalist option does).
    await input.fill(String(offered[0][0]));
    await field.locator("[data-fk-label]", { hasText: "Germany" }).waitFor();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".messages .message-info", { hasText: "Row updated" }).waitFor();
    const conn = Connection.open(current.get_database("shop").path!, { mode: "ro" });
    try {
      assert.deepEqual(
        conn.query("select country_code, typeof(country_code) from suppliers where id = 1").rows,
        [["DE", "text"]],
      );
    } finally {
      conn.close();
    }
  },
  textKeyService,
);

browserTest(
  "row editing: the delete dialog says which rows point at the row, and the delete is refused",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/categories/1`);
    await page.getByRole("button", { name: "Delete row" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this row?" });
    await dialog.getByText("3 rows in products (category_id) reference this row").waitFor();
    await dialog.getByRole("button", { name: "Delete row" }).click();
    await dialog.getByText(
      "Cannot delete: 3 rows in products (category_id) reference this row",
    ).waitFor();
    assert.deepEqual(await columnValuesOfFile(), ["Kitchen", "Garden", "Tools"]);
  },
  editorService,
);

/** The names of the categories, read from the file. */
function columnValuesOfFile(): string[] {
  const conn = Connection.open(current.get_database("shop").path!, { mode: "ro" });
  try {
    return conn.query("select name from categories order by id").rows.map((row) => String(row[0]));
  } finally {
    conn.close();
  }
}

browserTest(
  "row editing: anonymous visitors see no editing forms",
  async (page, base) => {
    await page.goto(`${base}/shop/products`);
    assert.equal(await page.locator("#insert-row").count(), 0);
    // The actions menu may offer a chart to anyone, but never a write action.
    assert.equal(await page.getByText("Insert row").count(), 0);
    assert.equal(await page.getByText("Drop table").count(), 0);
    await page.goto(`${base}/shop/products/1`);
    assert.equal(await page.locator("#edit-row").count(), 0);
    assert.equal(await page.getByRole("button", { name: "Delete row" }).count(), 0);
  },
  editorService,
);

browserTest(
  "drop table: the dialog counts the rows, confirming drops it",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/log`);
    await page.getByText("Table actions").click();
    await page.getByRole("link", { name: "Drop table" }).click();
    const dialog = page.getByRole("dialog", { name: "Drop table log?" });
    await dialog.getByText("The table and its 3 rows will be deleted.").waitFor();
    await dialog.getByRole("button", { name: "Drop table" }).click();
    await page.waitForURL(`${base}/shop`);
    assert.equal(await textOf(page, ".messages .message-info"), "Table log dropped");
    assert.equal(await current.get_database("shop").table_exists("log"), false);
  },
  editorService,
);

browserTest(
  "create table page: name, columns and key, then the new table opens",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Database actions").click();
    await page.getByRole("link", { name: "Create table" }).click();
    await page.waitForURL(`${base}/-/create-table?database=shop`);
    await page.getByLabel("Table name").fill("visits");
    const columns = page.locator(".create-column");
    await columns.nth(0).getByLabel("Name").fill("code");
    await columns.nth(0).getByLabel("primary key").check();
    await page.getByRole("button", { name: "Add column" }).click();
    await columns.nth(1).getByLabel("Name").fill("count");
    await columns.nth(1).getByLabel("Type").selectOption("integer");
    await page.getByRole("button", { name: "Create table" }).click();
    await page.waitForURL(`${base}/shop/visits`);
    assert.equal(await textOf(page, ".messages .message-info"), "Table visits created");
    assert.equal(
      await current.get_database("shop").get_table_definition("visits"),
      "CREATE TABLE [visits] (\n   [code] TEXT PRIMARY KEY,\n   [count] INTEGER\n);",
    );
  },
  editorService,
);
