import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { overflowsHorizontally, textOf, typeSql } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";

// The SQL editor's write mode, for an actor holding execute-write-sql on shop.
const WRITER = { id: "sqlwriter" };

let current: Service;
function writerService(): Service {
  current = shopService({
    metadata: { databases: { shop: { permissions: { "execute-write-sql": WRITER } } } },
  });
  return current;
}

function logMessages(): string[] {
  const conn = Connection.open(current.get_database("shop").path!, { mode: "ro" });
  try {
    return conn.query("select message from log order by rowid").rows.map((row) => String(row[0]));
  } finally {
    conn.close();
  }
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, WRITER), url: base },
  ]);
}

const SQL = "insert into log (message, level) values ('one; two', 'info');\n" +
  "insert into log (message, level) values ('three', 'info')";

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `SQL editor write mode at ${width}x${height}: confirm shows each statement, then runs`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      const before = logMessages();
      // Anonymous visitors get no write mode.
      await page.goto(`${base}/shop/-/query`);
      assert.equal(await page.getByRole("button", { name: "Run as write…" }).count(), 0);
      await signIn(page, base);
      await page.goto(`${base}/shop/-/query`);
      await typeSql(page, SQL);
      await page.getByRole("button", { name: "Run as write…" }).click();
      const dialog = page.getByRole("dialog", { name: "Run this SQL as a write?" });
      await dialog.getByText("2 statements would run, changing 2 rows").waitFor();
      assert.deepEqual(await dialog.locator(".execute-write-statements li").allTextContents(), [
        "insert into log (message, level) values ('one; two', 'info'); (1 row)",
        "insert into log (message, level) values ('three', 'info') (1 row)",
      ]);
      assert.deepEqual(logMessages(), before, "the dry run kept nothing");
      assert.equal(await overflowsHorizontally(page), false);
      // Cancel keeps nothing either; then confirm for real.
      await dialog.getByRole("button", { name: "Cancel" }).click();
      assert.deepEqual(logMessages(), before);
      await page.getByRole("button", { name: "Run as write…" }).click();
      await dialog.getByRole("button", { name: "Run" }).click();
      await page.waitForURL(`${base}/shop`);
      assert.equal(
        await textOf(page, ".messages .message-info"),
        "2 statements executed, 2 rows affected",
      );
      assert.deepEqual(logMessages(), [...before, "one; two", "three"]);
      // A failing batch is explained in the dialog and keeps nothing.
      await page.goto(`${base}/shop/-/query`);
      await typeSql(
        page,
        "insert into log (message) values ('four'); insert into nowhere values (1)",
      );
      await page.getByRole("button", { name: "Run as write…" }).click();
      await dialog.locator(".write-error").waitFor();
      assert.match(
        (await textOf(page, "#execute-write .write-error"))!,
        /^Statement 2 failed: no such table: nowhere/,
      );
      assert.ok(await dialog.getByRole("button", { name: "Run" }).isDisabled());
      assert.deepEqual(logMessages(), [...before, "one; two", "three"]);
    },
    writerService,
  );
}
