/**
 * Editing where one looks, on the table page, at a desktop and a phone size: a cell edited
 * inline (a 400 shown in place, Escape cancelling, the key never editable), rows ticked and
 * deleted or given one value together, and 50 rows pasted from a spreadsheet. Every write is
 * checked in the file with the `sqlite3` command line.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

const EDITOR = { id: "editor" };
const SCREENS = [[1280, 900], [390, 844]] as const;

let current: Service;
function editorService(): Service {
  current = shopService({
    metadata: {
      databases: {
        shop: {
          permissions: {
            "update-row": EDITOR,
            "delete-row": EDITOR,
            "insert-row": EDITOR,
          },
          tables: { products: { column_types: { added: "date", tags: "json" } } },
        },
      },
    },
  });
  return current;
}

/** What `sqlite3` prints for `sql` on the service's file. */
function sqlite3(sql: string): string {
  const path = current.get_database("shop").path!;
  const out = new Deno.Command("sqlite3", { args: [path, sql] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** Errors the page reports (script errors, CSP refusals), to assert there were none. */
function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return errors;
}

async function openTable(page: Page, base: string, width: number, height: number) {
  await page.setViewportSize({ width, height });
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
  ]);
  await page.goto(`${base}/shop/products`);
  await page.locator(".edit-bar:not([hidden])").waitFor();
}

/** The cell of `column` in the row whose key is `key`. */
function cell(page: Page, key: string, column: string) {
  return page.locator(`tr[data-row="${key}"] td.col-${column}`);
}

/** Opens a cell's editor the way the screen allows: double-click, or tap and "Edit cell". */
async function startEdit(page: Page, key: string, column: string, width: number) {
  if (width > 600) await cell(page, key, column).dblclick();
  else {
    await cell(page, key, column).click();
    await page.getByRole("button", { name: "Edit cell" }).click();
  }
  const shown = key.replace("~2F", "/").replace(",", ", ");
  const editor = page.getByRole("dialog", { name: `Edit ${column} of row ${shown}` });
  await editor.waitFor();
  return editor;
}

for (const [width, height] of SCREENS) {
  browserTest(
    `table page at ${width}x${height}: edit a cell inline; a 400 stays in place; Escape cancels; keys are not editable`,
    async (page, base) => {
      const errors = pageErrors(page);
      await openTable(page, base, width, height);
      // A REAL column: "5" is stored as 5.0, and the cell shows what was stored.
      let editor = await startEdit(page, "2", "price", width);
      const price = editor.getByLabel("price", { exact: true });
      assert.equal(await price.inputValue(), "4.25");
      await price.fill("5");
      await price.press("Enter");
      await editor.waitFor({ state: "detached" });
      assert.equal((await cell(page, "2", "price").innerText()).trim(), "5.0");
      assert.equal(sqlite3("select price, typeof(price) from products where id = 2"), "5.0|real");
      assert.match((await textOf(page, ".edit-bar-status"))!, /Saved price of row 2/);
      assert.equal(await overflowsHorizontally(page), false);

      // The column type picks the widget: a date picker for `added`.
      editor = await startEdit(page, "4", "added", width);
      const added = editor.getByLabel("added", { exact: true });
      assert.equal(await added.getAttribute("type"), "date");
      assert.equal(await added.inputValue(), "2024-02-03");
      await added.fill("2024-06-30");
      await editor.getByRole("button", { name: "Save" }).click();
      await editor.waitFor({ state: "detached" });
      assert.equal((await cell(page, "4", "added").innerText()).trim(), "2024-06-30");
      assert.equal(sqlite3("select added from products where id = 4"), "2024-06-30");

      // A JSON editor: Enter adds a line, bad JSON is refused on the spot, Ctrl+Enter saves.
      editor = await startEdit(page, "3", "tags", width);
      const tags = editor.getByLabel("tags", { exact: true });
      assert.equal(await tags.inputValue(), '["sale"]');
      await tags.fill('["sale",');
      await tags.press("Enter");
      assert.equal(await tags.inputValue(), '["sale",\n');
      await tags.press("Control+Enter");
      assert.match(await editor.locator(".write-error").innerText(), /tags must be valid JSON/);
      await tags.fill('["sale", "boxed"]');
      await tags.press("Control+Enter");
      await editor.waitFor({ state: "detached" });
      assert.equal(sqlite3("select tags from products where id = 3"), '["sale", "boxed"]');

      // The server refuses a category that does not exist: its message shows in the editor,
      // which stays open; Escape then closes it and nothing was written.
      editor = await startEdit(page, "5", "category_id", width);
      await editor.getByLabel("category_id", { exact: true }).fill("99");
      await editor.getByLabel("category_id", { exact: true }).press("Enter");
      const error = editor.locator(".write-error");
      await error.waitFor();
      assert.match(await error.innerText(), /category_id: 99 matches no id in categories/);
      assert.equal(await editor.isVisible(), true);
      await editor.getByLabel("category_id", { exact: true }).press("Escape");
      await editor.waitFor({ state: "detached" });
      assert.equal(sqlite3("select category_id from products where id = 5"), "2");
      assert.match(await cell(page, "5", "category_id").innerText(), /Garden/);

      // Escape cancels a change never sent.
      editor = await startEdit(page, "6", "name", width);
      await editor.getByLabel("name", { exact: true }).fill("Mallet");
      await page.keyboard.press("Escape");
      await editor.waitFor({ state: "detached" });
      assert.equal((await cell(page, "6", "name").innerText()).trim(), "Hammer");
      assert.equal(sqlite3("select name from products where id = 6"), "Hammer");

      // The primary key opens no editor, and says why.
      await cell(page, "6", "id").dblclick();
      await cell(page, "6", "id").press("Enter");
      assert.equal(await page.locator(".cell-editor").count(), 0);
      assert.match((await textOf(page, ".edit-bar-status"))!, /id is the row's primary key/);

      // The keyboard: arrows move between cells, Enter opens the focused one.
      await cell(page, "6", "name").focus();
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("Enter");
      editor = page.getByRole("dialog", { name: "Edit category_id of row 7" });
      await editor.waitFor();
      await page.keyboard.press("Escape");
      await editor.waitFor({ state: "detached" });
      assert.equal(
        await page.evaluate<string>("document.activeElement.className"),
        "col-category_id type-int",
      );

      // A compound key: the row is found by both its values.
      await page.goto(`${base}/shop/order_items`);
      editor = await startEdit(page, "A~2F1001,2", "quantity", width);
      await editor.getByLabel("quantity", { exact: true }).fill("4");
      await editor.getByLabel("quantity", { exact: true }).press("Enter");
      await editor.waitFor({ state: "detached" });
      assert.equal((await cell(page, "A~2F1001,2", "quantity").innerText()).trim(), "4");
      assert.equal(
        sqlite3("select quantity from order_items where order_id = 'A/1001' and product_id = 2"),
        "4",
      );
      // The refused write above is a 400 the browser logs as a failed request; nothing else.
      assert.deepEqual(errors.filter((error) => !/status of 400/.test(error)), []);
    },
    editorService,
  );

  browserTest(
    `table page at ${width}x${height}: tick rows, give them one value, then delete them`,
    async (page, base) => {
      await openTable(page, base, width, height);
      // With no row ticked the bulk buttons are disabled, and look it.
      for (const name of ["Edit column for 0 rows", "Delete 0 rows"]) {
        const button = page.getByRole("button", { name });
        assert.equal(await button.isDisabled(), true, name);
        // A string, as the other browser tests pass it: Deno's type check knows no DOM.
        const look = await page.evaluate(`(() => {
          const b = [...document.querySelectorAll(".edit-bar button")]
            .find((b) => b.textContent === ${JSON.stringify(name)});
          const s = getComputedStyle(b);
          return [s.opacity, s.cursor];
        })()`);
        assert.deepEqual(look, ["0.5", "not-allowed"], name);
      }
      // Shift-click ticks a range: 4 to 7, then 6 and 7 are cleared again and 8 ticked.
      await page.getByLabel("Select row 4").check();
      await page.getByLabel("Select row 7").click({ modifiers: ["Shift"] });
      assert.equal(await page.getByRole("button", { name: "Edit column for 4 rows" }).count(), 1);
      await page.getByLabel("Select row 6").uncheck();
      await page.getByLabel("Select row 7").uncheck();
      await page.getByLabel("Select row 8").check();
      await page.getByRole("button", { name: "Edit column for 3 rows" }).click();
      const edit = page.locator("#bulk-edit");
      await edit.getByLabel("Column").selectOption("notes");
      await edit.getByLabel("notes", { exact: true }).fill("Outdoor");
      let reloaded = page.waitForEvent("load");
      await edit.getByRole("button", { name: "Set for 3 rows" }).click();
      await reloaded;
      assert.equal(await textOf(page, ".messages .message-info"), "3 rows updated");
      assert.equal(
        sqlite3("select group_concat(id) from products where notes = 'Outdoor'"),
        "4,5,8",
      );

      // Deleting asks first, with the count; product 3 and 9 are in no order.
      await page.getByLabel("Select row 3").check();
      await page.getByLabel("Select row 9").check();
      await page.getByRole("button", { name: "Delete 2 rows" }).click();
      const dialog = page.locator("#bulk-delete");
      assert.equal(await textOf(page, "#bulk-delete h2"), "Delete 2 rows?");
      assert.match(
        (await textOf(page, "#bulk-delete .write-dialog-detail"))!,
        /^Rows 3 and 9 will be deleted in one transaction/,
      );
      reloaded = page.waitForEvent("load");
      await dialog.getByRole("button", { name: "Delete 2 rows" }).click();
      await reloaded;
      assert.equal(await textOf(page, ".messages .message-info"), "2 rows deleted");
      assert.equal(sqlite3("select count(*) from products where id in (3, 9)"), "0");
      assert.equal(sqlite3("select count(*) from products"), "7");

      // All or nothing: product 1 is ordered, so deleting it with 2 more deletes none.
      await page.getByLabel("Select every row on this page").check();
      await page.getByRole("button", { name: "Delete 7 rows" }).click();
      await dialog.getByRole("button", { name: "Delete 7 rows" }).click();
      await dialog.locator(".write-error").waitFor();
      assert.match(
        await dialog.locator(".write-error").innerText(),
        /^Row id=1: Cannot delete: .*order_items/,
      );
      assert.equal(sqlite3("select count(*) from products"), "7");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      assert.equal(await overflowsHorizontally(page), false);
    },
    editorService,
  );

  browserTest(
    `table page at ${width}x${height}: paste 50 rows from a spreadsheet`,
    async (page, base) => {
      await openTable(page, base, width, height);
      await page.locator(".actions-menu summary").click();
      await page.getByRole("link", { name: "Paste rows" }).click();
      const panel = page.locator("#paste-rows");
      const box = panel.getByLabel("Rows to insert into products");
      // A bad row first: nothing is inserted and the error names it.
      await box.fill("Spade\t1\nRake\tcheap\nHoe\t2\n");
      await panel.getByRole("button", { name: "Preview rows" }).click();
      assert.match(
        (await textOf(page, "#paste-rows .paste-summary"))!,
        /^3 rows for the columns name, category_id \(in order\)/,
      );
      await panel.getByRole("button", { name: "Insert 3 rows" }).click();
      await panel.locator(".write-error").waitFor();
      assert.match(
        await panel.locator(".write-error").innerText(),
        /^Nothing was inserted\. Row 2: .*category_id/,
      );
      assert.equal(sqlite3("select count(*) from products"), "9");

      // A header with a misspelt column is not taken for data.
      await box.fill("nmae\tprice\nSpade\t3\n");
      await panel.getByRole("button", { name: "Preview rows" }).click();
      assert.equal(
        await panel.locator(".write-error").innerText(),
        "The first row looks like a header, but the table has no column nmae.",
      );
      assert.equal(await panel.locator(".paste-insert").isVisible(), false);

      // 50 rows with a header naming three columns, in another order than the table's.
      const lines = ["price\tname\tadded"];
      for (let i = 1; i <= 50; i++) {
        lines.push(`${i}.5\tPasted ${i}\t2024-07-${String((i % 28) + 1).padStart(2, "0")}`);
      }
      await box.fill(lines.join("\n"));
      await panel.getByRole("button", { name: "Preview rows" }).click();
      assert.equal(
        await textOf(page, "#paste-rows .paste-summary"),
        "50 rows for the columns price, name, added (matched by the header row); " +
          "the first 10 are shown.",
      );
      assert.equal(await panel.locator(".paste-preview tbody tr").count(), 10);
      assert.equal(await overflowsHorizontally(page), false);
      const reloaded = page.waitForEvent("load");
      await panel.getByRole("button", { name: "Insert 50 rows" }).click();
      await reloaded;
      assert.equal(await textOf(page, ".messages .message-info"), "50 rows inserted");
      assert.equal(
        sqlite3(
          "select count(*), min(price), max(price), typeof(price) from products where name like 'Pasted %'",
        ),
        "50|1.5|50.5|real",
      );
      assert.equal(
        sqlite3("select price, added from products where name = 'Pasted 7'"),
        "7.5|2024-07-08",
      );
    },
    editorService,
  );
}

browserTest(
  "table page on a touch screen: a second tap on a cell edits it",
  async (page, base) => {
    const context = await page.context().browser()!.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    try {
      await context.addCookies([
        { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
      ]);
      const touch = await context.newPage();
      await touch.goto(`${base}/shop/products`);
      await touch.locator(".edit-bar:not([hidden])").waitFor();
      await cell(touch, "9", "name").tap();
      assert.equal(await touch.locator(".cell-editor").count(), 0, "the first tap only picks it");
      await cell(touch, "9", "name").tap();
      const editor = touch.getByRole("dialog", { name: "Edit name of row 9" });
      await editor.waitFor();
      await editor.getByLabel("name", { exact: true }).fill("Tea towels");
      await editor.getByRole("button", { name: "Save" }).tap();
      await editor.waitFor({ state: "detached" });
      assert.equal(sqlite3("select name from products where id = 9"), "Tea towels");
    } finally {
      await context.close();
    }
  },
  editorService,
);
