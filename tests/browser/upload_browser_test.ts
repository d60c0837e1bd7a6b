import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";

// An editor may create tables and insert rows in shop; nobody else may write.
const EDITOR = { id: "editor" };

let current: Service;
function editorService(): Service {
  current = shopService({
    metadata: {
      databases: {
        shop: { permissions: { "create-table": EDITOR, "insert-row": EDITOR } },
      },
    },
    settings: { max_insert_rows: 1000 },
  });
  return current;
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
  ]);
}

/** The few DOM methods the progress sampler uses (the test's types have no DOM). */
interface ParentLike {
  querySelector(selector: string): { hasAttribute(name: string): boolean };
}

/** Runs the sqlite3 command-line shell on the served file. */
async function sqlite3(sql: string): Promise<string> {
  const { stdout, success } = await new Deno.Command("sqlite3", {
    args: ["-readonly", current.get_database("shop").path!, sql],
    stdout: "piped",
  }).output();
  assert.ok(success);
  return new TextDecoder().decode(stdout).trim();
}

/** A CSV of `rows` rows, about 60 bytes each, with a quoted field holding a newline. */
function csvText(rows: number): string {
  const lines = ["code,label,amount,day"];
  for (let i = 1; i <= rows; i++) {
    const label = i === 2 ? '"two\nlines"' : `"Item ${i}, boxed"`;
    lines.push(
      `${String(i).padStart(6, "0")},${label},${(i / 8).toFixed(3)},2024-03-0${i % 9 + 1}`,
    );
  }
  return lines.join("\n") + "\n";
}

browserTest(
  "a CSV dropped on the database page becomes a table, with types changeable and a progress bar",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    const rows = 60_000; // about 3.5 MB
    const text = csvText(rows);
    await page.locator(".upload-file").setInputFiles({
      name: "deliveries.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(text),
    });
    // The preview: inferred types, each changeable.
    await page.locator(".upload-preview-table").waitFor();
    const types = await page.locator(".upload-preview-table select").evaluateAll((selects) =>
      selects.map((select) => (select as unknown as { value: string }).value)
    );
    // Codes with leading zeros are text, amounts are numbers...
    assert.deepEqual(types, ["text", "text", "float", "text"]);
    // ...unless the amounts are to keep their three decimals as written.
    await page.getByLabel("Type of amount").selectOption("text");
    assert.equal(await page.locator(".upload-table").inputValue(), "deliveries");
    await page.locator(".upload-pk").selectOption("code");
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-status").waitFor();
    const seen = await page.locator(".upload-progress").evaluate((bar) =>
      new Promise<number[]>((resolve) => {
        const values: number[] = [];
        const timer = setInterval(() => {
          values.push((bar as unknown as { value: number }).value);
          const done = (bar as unknown as { closest(s: string): ParentLike }).closest("form")
            .querySelector(".upload-done");
          if (!done.hasAttribute("hidden")) {
            clearInterval(timer);
            resolve(values);
          }
        }, 20);
      })
    );
    assert.ok(seen.some((value) => value > 0 && value < 100), `progress seen: ${seen}`);
    assert.match(
      await page.locator(".upload-done").textContent() ?? "",
      /^Done: 60,000 rows added\. Open the table$/,
    );
    await page.getByRole("link", { name: "Open the table" }).click();
    await page.waitForURL(`${base}/shop/deliveries`);
    assert.equal(await sqlite3("select count(*) from deliveries"), String(rows));
    assert.equal(
      await sqlite3(
        "select code, typeof(code), label, amount, typeof(amount) from deliveries where code = '000002'",
      ),
      "000002|text|two\nlines|0.250|text",
    );
    assert.equal(
      await sqlite3("select name, type, pk from pragma_table_info('deliveries') order by cid"),
      "code|TEXT|1\nlabel|TEXT|0\namount|TEXT|0\nday|TEXT|0",
    );
  },
  editorService,
);

browserTest(
  "pasted rows append to a table; a repeated key stops with the rows it could not add",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/categories`);
    await page.getByText("Upload rows from a CSV file").click();
    await page.locator(".upload-paste").fill("id,name\n10,Seeds\n11,Bulbs\n");
    await page.getByRole("button", { name: "Preview pasted text" }).click();
    await page.locator(".upload-preview-table").waitFor();
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-done").waitFor({ state: "visible" });
    assert.equal(await sqlite3("select name from categories where id in (10, 11)"), "Seeds\nBulbs");
    // The same rows again: the batch fails whole, nothing half-written.
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-error").waitFor({ state: "visible" });
    assert.match(
      await page.locator(".upload-error").textContent() ?? "",
      /^Rows 1–2 were not added: /,
    );
    assert.equal(await sqlite3("select count(*) from categories where id in (10, 11)"), "2");
  },
  editorService,
);

browserTest("no upload panel for a visitor who may not write", async (page, base) => {
  await page.goto(`${base}/shop`);
  assert.equal(await page.locator(".upload-panel").count(), 0);
  await page.goto(`${base}/shop/categories`);
  assert.equal(await page.locator(".upload-panel").count(), 0);
}, editorService);

browserTest(
  "Cancel stops an upload between batches: whole batches are in the table, no more",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    await page.locator(".upload-file").setInputFiles({
      name: "many.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(csvText(60_000)),
    });
    await page.locator(".upload-preview-table").waitFor();
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-count", { hasText: "rows" }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    const done = page.locator(".upload-done");
    await done.waitFor({ state: "visible" });
    const match = /^Cancelled after ([\d,]+) rows\. Open the table$/.exec(
      await done.textContent() ?? "",
    );
    assert.ok(match, await done.textContent() ?? "");
    const sent = Number(match[1].replaceAll(",", ""));
    assert.ok(sent > 0 && sent < 60_000 && sent % 1000 === 0, `sent ${sent}`);
    assert.equal(await sqlite3("select count(*) from many"), String(sent));
  },
  editorService,
);
