/**
 * The history of writes, at a desktop and a phone size: rows ticked on the table page and given
 * one value in one bulk edit (one request), that request found on the history pages and undone
 * with its button, and the file checked with the `sqlite3` command line afterwards.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

const EDITOR = { id: "editor" };

let current: Service;
function historyService(): Service {
  current = shopService({
    metadata: {
      databases: {
        shop: {
          permissions: {
            "update-row": EDITOR,
            "delete-row": EDITOR,
            "insert-row": EDITOR,
            "revert-change": EDITOR,
          },
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

const NOTES =
  "select group_concat(id || '=' || quote(notes), ' ') from products where id in (4, 5, 8)";

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `history at ${width}x${height}: a bulk edit of three rows is undone in one go`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      await page.context().addCookies([
        { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
      ]);
      const original = sqlite3(NOTES);
      assert.equal(original, "4='' 5='Rust resistant' 8=NULL");

      // The bulk change: three rows ticked and given one value, in one request.
      await page.goto(`${base}/shop/products`);
      await page.locator(".edit-bar:not([hidden])").waitFor();
      for (const id of [4, 5, 8]) await page.getByLabel(`Select row ${id}`).check();
      await page.getByRole("button", { name: "Edit column for 3 rows" }).click();
      const edit = page.locator("#bulk-edit");
      await edit.getByLabel("Column").selectOption("notes");
      await edit.getByLabel("notes", { exact: true }).fill("Outdoor");
      let reloaded = page.waitForEvent("load");
      await edit.getByRole("button", { name: "Set for 3 rows" }).click();
      await reloaded;
      assert.equal(sqlite3(NOTES), "4='Outdoor' 5='Outdoor' 8='Outdoor'");

      // A delete asked for says the history can undo it (the editor may revert); cancelled.
      await page.locator(".edit-bar:not([hidden])").waitFor();
      await page.getByLabel("Select row 4").check();
      await page.getByRole("button", { name: "Delete 1 row" }).click();
      const remove = page.locator("#bulk-delete");
      assert.equal(
        await remove.locator(".write-dialog-detail").innerText(),
        "Row 4 will be deleted. The database's history can undo it.",
      );
      await remove.getByRole("button", { name: "Cancel" }).click();

      // A row page links to its history, which shows the change and who made it.
      await page.goto(`${base}/shop/products/5`);
      await page.getByRole("link", { name: "History of this row" }).click();
      await page.waitForURL(`${base}/shop/products/5/-/history`);
      const only = page.locator(".history-change");
      assert.equal(await only.count(), 1);
      assert.match(await only.locator(".history-meta").innerText(), /^by editor at /);
      assert.equal(
        await only.locator("tr.history-changed td.history-before").innerText(),
        "Rust resistant",
      );
      assert.equal(
        await only.locator("tr.history-changed td.history-after").innerText(),
        "Outdoor",
      );
      assert.match(
        await page.locator(".history-note").innerText(),
        /other programs .* not\s+recorded/,
      );
      assert.equal(await overflowsHorizontally(page), false);
      // Column names stay whole on a phone: "category_id" on one line, not "category_i / d".
      const lines = await page.evaluate<Record<string, number>>(
        `Object.fromEntries([...document.querySelectorAll(".history-values tbody th")].map((th) => {
          const range = document.createRange();
          range.selectNodeContents(th);
          return [th.textContent, new Set([...range.getClientRects()].map((r) => r.top)).size];
        }))`,
      );
      assert.deepEqual(
        Object.entries(lines).filter(([, count]) => count > 1),
        [],
        JSON.stringify(lines),
      );

      // The database's history lists the three changes of the one request; undo them all.
      await page.goto(`${base}/shop`);
      const menu = page.locator("details.actions-menu").first();
      if (await menu.count()) await menu.locator("summary").click();
      await page.getByRole("link", { name: "History", exact: true }).click();
      await page.waitForURL(`${base}/shop/-/history`);
      assert.equal(await page.locator(".history-change").count(), 3);
      assert.equal(await overflowsHorizontally(page), false);
      reloaded = page.waitForEvent("load");
      await page.locator(".history-change").first()
        .getByRole("button", { name: "Undo its whole request" }).click();
      await reloaded;
      assert.match(
        (await textOf(page, ".messages .message-info"))!,
        /^Reverted 3 changes of request /,
      );
      assert.equal(sqlite3(NOTES), original);
      assert.equal(sqlite3("select typeof(notes) from products where id = 8"), "null");

      // The undo is itself recorded: three more changes, each naming the one it reverted, and
      // the undone ones offer no button any more.
      assert.equal(await page.locator(".history-change").count(), 6);
      assert.match(
        await page.locator(".history-change").first().locator(".history-meta").innerText(),
        /reverting #\d/,
      );
      assert.equal(
        await page.locator(".history-change", { hasText: "reverted by" })
          .getByRole("button", { name: "Undo this change" }).count(),
        0,
      );
      assert.equal(
        sqlite3("select count(*) from products where notes = 'Outdoor'"),
        "0",
      );
      assert.equal(await overflowsHorizontally(page), false);
    },
    historyService,
  );
}
