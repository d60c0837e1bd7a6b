/**
 * Exports as a visitor downloads them: after a row is inserted through the page, the Export menu's
 * files, compressed (Chromium's own `Accept-Encoding`) and not, hold what the `sqlite3` shell
 * answers for the same SQL on the same file.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { columnValues } from "./pages.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

const EDITOR = { id: "editor" };

let current: Service;
function editorService(): Service {
  current = shopService({
    metadata: { databases: { shop: { permissions: { "insert-row": EDITOR } } } },
  });
  return current;
}

/** The shell's CSV of `sql` (its own quoting), read back as rows of fields. */
function sqlite3Csv(sql: string): string[][] {
  const path = current.get_database("shop").path!;
  const out = new Deno.Command("/usr/bin/sqlite3", { args: ["-csv", "-header", path, sql] })
    .outputSync();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return parseCsv(new TextDecoder().decode(out.stdout));
}

/** RFC 4180 fields, either line end. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[++i];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") (row.push(field), field = "");
    else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      if (c === "\r") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  return rows;
}

/** Clicks the Export menu's `link` and answers the file it downloads, and how it was encoded. */
async function download(page: Page, link: string): Promise<{ text: string; coding: string }> {
  let coding = "";
  const seen = (response: { url(): string; headers(): Record<string, string> }) => {
    if (/\.csv\?/.test(response.url())) coding = response.headers()["content-encoding"] ?? "";
  };
  page.on("response", seen);
  const [file] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: link }).click(),
  ]);
  const path = await file.path();
  page.off("response", seen);
  return { text: await Deno.readTextFile(path), coding };
}

browserTest(
  "exports: after a write through the page, downloads with and without compression match sqlite3",
  async (page, base) => {
    await page.context().addCookies([
      { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
    ]);
    await page.goto(`${base}/shop/categories#insert-row`);
    const insert = page.locator("#insert-row form");
    await insert.getByLabel("name", { exact: true }).fill('Paint, "new"');
    await insert.getByRole("button", { name: "Insert row" }).click();
    await page.getByRole("cell", { name: 'Paint, "new"' }).waitFor();
    assert.ok((await columnValues(page, "name")).includes('Paint, "new"'));
    // A product in the new category: its label is the row just written.
    await current.get_database("shop").execute_write(
      "update products set category_id = (select max(id) from categories) where id = 3",
    );

    const labelled = "select p.id, p.name, p.category_id, " +
      "(select name from categories where id = p.category_id) as category_id_label, p.price, " +
      "p.tags, p.added, p.notes from products p order by p.id";
    const whole = "select * from categories order by id";
    await page.goto(`${base}/shop/products`);
    await page.locator(".export-menu summary").click();
    await page.getByLabel("Expand labels").check();
    // Downloaded by Chromium, which asks for gzip and br: compressed.
    const all = await download(page, "All rows as CSV");
    assert.equal(all.coding, "br");
    assert.deepEqual(parseCsv(all.text), sqlite3Csv(labelled));
    const one = await download(page, "This page as CSV");
    assert.deepEqual(parseCsv(one.text), sqlite3Csv(labelled));
    // The same links fetched as curl or pandas would, uncompressed. (Chromium keeps its own
    // Accept-Encoding for downloads, whatever headers a test sets.)
    for (const name of ["All rows as CSV", "This page as CSV"]) {
      const href = await page.getByRole("link", { name }).getAttribute("href");
      const response = await page.request.get(new URL(href!, base).href, {
        headers: { "accept-encoding": "identity" },
      });
      assert.equal(response.headers()["content-encoding"], undefined, name);
      assert.deepEqual(parseCsv(await response.text()), sqlite3Csv(labelled), name);
    }
    await page.goto(`${base}/shop/categories`);
    await page.locator(".export-menu summary").click();
    const categories = await download(page, "All rows as CSV");
    assert.deepEqual(parseCsv(categories.text), sqlite3Csv(whole));
  },
  editorService,
);
