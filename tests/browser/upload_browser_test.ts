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
/**
 * A shop service for the editor; `partBytes` is max_post_body_bytes, the most a part may be.
 * `history: false` turns the change history off, for the 50 MB upload: recording a million rows
 * would take it from about 16 s to about 100 s (bench/upload.ts), and the endpoint's tests check
 * that uploads are recorded.
 */
function editorService(
  { partBytes = 2 * 1024 * 1024, drop = false, history = true } = {},
): () => Service {
  return () => {
    const permissions: Record<string, unknown> = { "create-table": EDITOR, "insert-row": EDITOR };
    if (drop) permissions["drop-table"] = EDITOR;
    current = shopService({
      metadata: { databases: { shop: { permissions, ...(history ? {} : { history: "off" }) } } },
      settings: { max_post_body_bytes: partBytes },
    });
    return current;
  };
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

/**
 * A CSV of `rows` rows, about 60 bytes each; every 997th row's label is a quoted field holding
 * line breaks and a doubled quote, so some of them straddle the edge of a part.
 */
function csvText(rows: number): string {
  const lines = ["code,label,amount,day"];
  for (let i = 1; i <= rows; i++) {
    const label = i % 997 === 2 ? `"two\nlines, ""${i}""\n"` : `"Item ${i}, boxed"`;
    lines.push(
      `${String(i).padStart(8, "0")},${label},${(i / 8).toFixed(3)},2024-03-0${i % 9 + 1}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** Writes `csvText(rows)` to a file in a temporary folder (a 50 MB string is no test buffer). */
function csvFile(rows: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-upload-" });
  const path = `${dir}/deliveries.csv`;
  Deno.writeTextFileSync(path, csvText(rows));
  return path;
}

/** The progress bar's values, from now until the upload panel says it is done (or failed). */
function progressSeen(page: Page): Promise<number[]> {
  return page.locator(".upload-progress").evaluate(
    (bar) =>
      new Promise<number[]>((resolve) => {
        const values: number[] = [];
        const timer = setInterval(() => {
          values.push((bar as unknown as { value: number }).value);
          const form = (bar as unknown as { closest(s: string): ParentLike }).closest("form");
          if (
            !form.querySelector(".upload-done").hasAttribute("hidden") ||
            !form.querySelector(".upload-error").hasAttribute("hidden")
          ) {
            clearInterval(timer);
            resolve(values);
          }
        }, 20);
      }),
    undefined,
    { timeout: 10 * 60_000 },
  );
}

browserTest(
  "a 50 MB CSV becomes a table, sent in parts with a progress bar, types changeable",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    const rows = 830_000; // about 50 MB
    const path = csvFile(rows);
    try {
      await page.locator(".upload-file").setInputFiles(path);
      // The preview: inferred types, each changeable.
      await page.locator(".upload-preview-table").waitFor();
      const types = await page.locator(".upload-preview-table select").evaluateAll((selects) =>
        selects.map((select) => (select as unknown as { value: string }).value)
      );
      // Codes with leading zeros are text, amounts are numbers, days dates...
      assert.deepEqual(types, ["text", "text", "float", "date"]);
      // ...unless the amounts are to keep their three decimals as written.
      await page.getByLabel("Type of amount").selectOption("text");
      assert.equal(await page.locator(".upload-table").inputValue(), "deliveries");
      // The name's box is a text field like the key's select beside it, not the browser's bare one.
      const looks = await page.evaluate<string[]>(
        `[...document.querySelectorAll(".upload-table, .upload-pk")].map((field) => {
          const style = getComputedStyle(field);
          return style.fontSize + " " + style.minHeight + " " + style.borderTopColor;
        })`,
      );
      assert.equal(looks[0], looks[1]);
      await page.locator(".upload-pk").selectOption("code");
      // The sampling starts before the upload, so it cannot miss the beginning.
      const sampled = progressSeen(page);
      await page.getByRole("button", { name: "Upload" }).click();
      const seen = await sampled;
      assert.ok(
        seen.some((value) => value > 0 && value < 100),
        `progress seen: ${seen}; ${await page.locator(".upload-error").textContent()}`,
      );
      assert.match(await page.locator(".upload-count").textContent() ?? "", / rows · /);
      assert.equal(
        await page.locator(".upload-done").textContent(),
        "Done: 830,000 rows added. Open the table",
      );
    } finally {
      Deno.removeSync(path.replace(/\/[^/]*$/, ""), { recursive: true });
    }
    await page.getByRole("link", { name: "Open the table" }).click();
    await page.waitForURL(`${base}/shop/deliveries`);
    assert.equal(await sqlite3("select count(*) from deliveries"), String(rows));
    // Every quoted label with line breaks came through whole, wherever the parts were cut.
    assert.equal(
      await sqlite3(
        "select count(*) from deliveries where label = " +
          "'two' || char(10) || 'lines, \"' || cast(code as integer) || '\"' || char(10)",
      ),
      String(Math.floor((rows - 2) / 997) + 1),
    );
    assert.equal(
      await sqlite3(
        "select code, typeof(code), amount, typeof(amount) from deliveries where code = '00000002'",
      ),
      "00000002|text|0.250|text",
    );
    assert.equal(
      await sqlite3("select name, type, pk from pragma_table_info('deliveries') order by cid"),
      "code|TEXT|1\nlabel|TEXT|0\namount|TEXT|0\nday|TEXT|0",
    );
  },
  editorService({ history: false }),
);

for (const [width, height] of [[1280, 900], [390, 844]]) {
  browserTest(
    `at ${width}x${height}: pasted rows append to a table; a repeated key names its lines`,
    async (page, base) => {
      await page.setViewportSize({ width, height });
      await signIn(page, base);
      await page.goto(`${base}/shop/categories`);
      await page.locator("#upload-rows > summary").click();
      await page.locator(".upload-paste").fill("id,name,colour\n10,Seeds,\n11,Bulbs,\n");
      await page.getByRole("button", { name: "Preview pasted text" }).click();
      await page.locator(".upload-preview-table").waitFor();
      // A column the table lacks is marked before anything is sent.
      assert.equal(
        await page.locator(".upload-preview-table th", { hasText: "colour" }).textContent(),
        "colournot in the table",
      );
      await page.locator(".upload-paste").fill("id,name\n10,Seeds\n11,Bulbs\n");
      await page.getByRole("button", { name: "Preview pasted text" }).click();
      await page.getByRole("button", { name: "Upload" }).click();
      await page.locator(".upload-done").waitFor({ state: "visible" });
      assert.equal(
        await page.locator(".upload-done").textContent(),
        "Done: 2 rows added. Open the table",
      );
      assert.equal(
        await sqlite3("select name from categories where id in (10, 11)"),
        "Seeds\nBulbs",
      );
      // The same rows again: the part fails whole, nothing half-written.
      await page.getByRole("button", { name: "Upload" }).click();
      await page.locator(".upload-error").waitFor({ state: "visible" });
      assert.equal(
        await page.locator(".upload-error").textContent(),
        "Lines 1–3 were not added: line 2: UNIQUE constraint failed: categories.id (a repeated " +
          "key). 0 rows were added before.",
      );
      assert.equal(await sqlite3("select count(*) from categories where id in (10, 11)"), "2");
      // One row is one row, one column one column.
      await page.locator(".upload-paste").fill("id\n12\n");
      await page.getByRole("button", { name: "Preview pasted text" }).click();
      await page.locator(".upload-summary", { hasText: /^1 column; / }).waitFor();
      await page.locator(".upload-paste").fill("id,name\n12,Tubers\n");
      await page.getByRole("button", { name: "Preview pasted text" }).click();
      await page.locator(".upload-summary", { hasText: /^2 columns; / }).waitFor();
      await page.getByRole("button", { name: "Upload" }).click();
      await page.locator(".upload-done").waitFor({ state: "visible" });
      assert.equal(
        await page.locator(".upload-done").textContent(),
        "Done: 1 row added. Open the table",
      );
      assert.match(await page.locator(".upload-count").textContent() ?? "", /^1 row · /);
      // Nothing sticks out of the page at either size.
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      assert.equal(overflow, 0);
    },
    editorService(),
  );
}

browserTest(
  "choosing another file renames the new table after it, unless the name was typed",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    const choose = async (name: string) => {
      await page.locator(".upload-file").setInputFiles({
        name,
        mimeType: "text/csv",
        buffer: Buffer.from(`id,${name}\n1,x\n`),
      });
      await page.locator(".upload-preview-table th", { hasText: name }).waitFor();
    };
    await choose("first.csv");
    assert.equal(await page.locator(".upload-table").inputValue(), "first");
    await choose("second.csv");
    assert.equal(await page.locator(".upload-table").inputValue(), "second");
    await page.locator(".upload-table").fill("mine");
    await choose("third.csv");
    assert.equal(await page.locator(".upload-table").inputValue(), "mine");
  },
  editorService(),
);

browserTest(
  "a Latin-1 file is read as such and stored as the same characters (sent as UTF-8)",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/categories`);
    await page.locator("#upload-rows > summary").click();
    // "Café" and "Crème brûlée" in Latin-1: é is the byte E9, which is not UTF-8.
    const text = "id,name\n30,Caf\xe9\n31,Cr\xe8me br\xfbl\xe9e\n";
    await page.locator(".upload-file").setInputFiles({
      name: "latin1.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(text, "latin1"),
    });
    await page.locator(".upload-preview-table").waitFor();
    assert.equal(
      await page.locator(".upload-preview-table tbody tr").nth(1).locator("td").nth(1)
        .textContent(),
      "Crème brûlée",
    );
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-done").waitFor({ state: "visible" });
    assert.equal(
      await sqlite3("select name from categories where id >= 30 order by id"),
      "Café\nCrème brûlée",
    );
  },
  editorService(),
);

browserTest("no upload panel for a visitor who may not write", async (page, base) => {
  await page.goto(`${base}/shop`);
  assert.equal(await page.locator(".upload-panel").count(), 0);
  await page.goto(`${base}/shop/categories`);
  assert.equal(await page.locator(".upload-panel").count(), 0);
}, editorService());

browserTest(
  "small parts: a failed part in the middle names its lines; the parts before it stay",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    // Row 3,000 repeats row 1's code: with parts of at most 16 KB, it fails in a later part.
    const text = csvText(4000).replace(/\n00003000,/, "\n00000001,");
    await page.locator(".upload-file").setInputFiles({
      name: "parts.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(text),
    });
    await page.locator(".upload-preview-table").waitFor();
    await page.locator(".upload-pk").selectOption("code");
    await page.getByRole("button", { name: "Upload" }).click();
    const error = page.locator(".upload-error");
    await error.waitFor({ state: "visible" });
    const match =
      /^Lines ([\d,]+)–([\d,]+) were not added: line ([\d,]+): UNIQUE constraint failed: parts\.code \(a repeated key\)\. ([\d,]+) rows were added before\.$/
        .exec(await error.textContent() ?? "");
    assert.ok(match, await error.textContent() ?? "");
    const [from, to, at, before] = match.slice(1).map((n) => Number(n.replaceAll(",", "")));
    // Row 3,000 is on line 3,001, plus the line breaks of the quoted labels before it.
    assert.equal(at, 3001 + 2 * 4);
    assert.ok(from > 1 && from <= at && at <= to, `${from}–${to}`);
    assert.equal(await sqlite3("select count(*) from parts"), String(before));
    assert.doesNotMatch(await page.locator(".upload-count").textContent() ?? "", /left/);
    assert.equal(await sqlite3("select max(code) from parts"), String(before).padStart(8, "0"));
  },
  editorService({ partBytes: 16 * 1024 }),
);

browserTest(
  "Cancel stops after the part in flight: whole parts are in the table, and it can be dropped",
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
    const match = /^Cancelled: ([\d,]+) rows were added and kept\. Open the table Drop it$/.exec(
      await done.textContent() ?? "",
    );
    assert.ok(match, await done.textContent() ?? "");
    // Stopped, the progress line keeps what was sent but no longer says how long is left.
    assert.match(
      await page.locator(".upload-count").textContent() ?? "",
      /^[\d,]+ rows · [\d.]+ of [\d.]+ MB$/,
    );
    const sent = Number(match[1].replaceAll(",", ""));
    assert.ok(sent > 0 && sent < 60_000, `sent ${sent}`);
    assert.equal(await sqlite3("select count(*) from many"), String(sent));
    // Whole parts: the rows kept are the file's first ones.
    assert.equal(await sqlite3("select max(rowid) from many"), String(sent));
    await page.getByRole("button", { name: "Drop it" }).click();
    await page.locator(".upload-done", { hasText: "The table was dropped." }).waitFor();
    assert.equal(await sqlite3("select count(*) from sqlite_master where name = 'many'"), "0");
  },
  editorService({ partBytes: 64 * 1024, drop: true }),
);

browserTest(
  "on a table page the upload panel sits as close below the paste panel as that one below insert",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/categories`);
    const gaps = await page.evaluate<number[]>(
      `(() => {
        const box = (selector) => document.querySelector(selector).getBoundingClientRect();
        return [
          box("#paste-rows").top - box("#insert-row").bottom,
          box(".upload-panel").top - box("#paste-rows").bottom,
        ];
      })()`,
    );
    assert.equal(gaps[1], gaps[0]);
  },
  editorService(),
);

/**
 * A CSV of `rows` rows: `day` a date, `at` a date and time, `note` text, and `closing` empty in
 * the first rows (so the preview infers text) then dates, but `tbc` on row `tbcAt` if given.
 */
function datesCsv(rows: number, tbcAt = 0): string {
  const lines = ["id,day,at,note,closing"];
  for (let i = 1; i <= rows; i++) {
    const day = `2024-03-${String(i % 28 + 1).padStart(2, "0")}`;
    const at = `${day}T${String(i % 24).padStart(2, "0")}:30:00`;
    const closing = i <= 20 ? "" : i === tbcAt ? "tbc" : "2024-05-01";
    lines.push(`${i},${day},${at},note ${i},${closing}`);
  }
  return lines.join("\n") + "\n";
}

browserTest(
  "the type menu offers date and datetime, preselects what the importer infers, and is honoured",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop`);
    await page.getByText("Upload a CSV file as a new table").click();
    const choose = async (name: string, text: string) => {
      await page.locator(".upload-file").setInputFiles({
        name,
        mimeType: "text/csv",
        buffer: Buffer.from(text),
      });
      await page.waitForFunction(
        (table) =>
          (globalThis as unknown as { document: { querySelector(s: string): { value: string } } })
            .document.querySelector(".upload-table").value === table,
        name.replace(/\.csv$/, ""),
      );
    };
    const chosen = () =>
      page.locator(".upload-preview-table select").evaluateAll((selects) =>
        selects.map((select) => (select as unknown as { value: string }).value)
      );
    const columnTypes = async (table: string) =>
      Object.fromEntries(
        [...await current.column_type_store.forTable("shop", table)].map(([c, a]) => [c, a?.type]),
      );
    // Parts of at most 16 KB: the file of 2,000 rows (about 100 KB) goes in several.
    await choose("events.csv", datesCsv(2000, 1500));
    assert.deepEqual(
      await page.getByLabel("Type of day").locator("option").allTextContents(),
      ["integer", "float", "text", "date", "datetime"],
    );
    assert.deepEqual(await chosen(), ["integer", "date", "datetime", "text", "text"]);
    // Dates kept as plain text; a column of dates to come made a date column.
    await page.getByLabel("Type of day").selectOption("text");
    await page.getByLabel("Type of closing").selectOption("date");
    await page.getByRole("button", { name: "Upload" }).click();
    const error = page.locator(".upload-error");
    await error.waitFor({ state: "visible" });
    // The chosen date holds in every part: the part with "tbc" fails, naming its line.
    const match =
      /^Lines ([\d,]+)–([\d,]+) were not added: line 1501: column closing: Must be a date in the form YYYY-MM-DD\. ([\d,]+) rows were added before\.$/
        .exec(await error.textContent() ?? "");
    assert.ok(match, await error.textContent() ?? "");
    const before = Number(match[3].replaceAll(",", ""));
    assert.ok(before > 0 && before < 1500, `${before}`);
    assert.equal(await sqlite3("select count(*) from events"), String(before));
    assert.deepEqual(await columnTypes("events"), { at: "datetime", closing: "date" });
    assert.equal(
      await sqlite3("select group_concat(type) from pragma_table_info('events')"),
      "INTEGER,TEXT,TEXT,TEXT,TEXT",
    );

    // Without the "tbc": every part goes in, and the choices are the table's.
    await choose("dates.csv", datesCsv(2000));
    assert.deepEqual(await chosen(), ["integer", "date", "datetime", "text", "text"]);
    await page.getByLabel("Type of at").selectOption("text");
    await page.getByLabel("Type of closing").selectOption("date");
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator(".upload-done").waitFor({ state: "visible" });
    assert.equal(
      await page.locator(".upload-done").textContent(),
      "Done: 2,000 rows added. Open the table",
    );
    assert.deepEqual(await columnTypes("dates"), { day: "date", closing: "date" });
    assert.equal(
      await sqlite3("select count(*), count(distinct closing) from dates where closing != ''"),
      "1980|1",
    );
  },
  editorService({ partBytes: 16 * 1024 }),
);

browserTest(
  "the table's actions menu opens the upload panel",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/products`);
    assert.equal(await page.locator("#upload-rows").getAttribute("open"), null);
    await page.locator(".actions-menu summary").click();
    await page.getByRole("link", { name: "Upload rows from a CSV file" }).click();
    assert.equal(await page.locator("#upload-rows").getAttribute("open"), "");
    await page.locator("#upload-rows .upload-file").waitFor();
  },
  editorService(),
);

browserTest(
  "a spreadsheet's Windows-1252 CSV whose first accent is past the preview is read as such",
  async (page, base) => {
    await signIn(page, base);
    const dir = Deno.makeTempDirSync({ prefix: "vitrine-upload-" });
    const path = `${dir}/towns.csv`;
    // 100 KB of plain ASCII (the preview reads 64 KB and says UTF-8), then Köln in Latin-1.
    const ascii = "id,town\n" + Array.from({ length: 8000 }, (_, i) => `${i + 1},Koln\n`).join("");
    Deno.writeFileSync(
      path,
      new Uint8Array([
        ...new TextEncoder().encode(ascii),
        ...[0x38, 0x30, 0x30, 0x31, 0x2c],
        0x4b,
        0xf6,
        0x6c,
        0x6e,
        0x0a,
      ]),
    );
    try {
      await page.goto(`${base}/shop`);
      await page.getByText("Upload a CSV file as a new table").click();
      await page.locator(".upload-file").setInputFiles(path);
      await page.locator(".upload-preview-table").waitFor();
      await page.getByRole("button", { name: "Upload" }).click();
      await page.locator(".upload-done:not([hidden]), .upload-error:not([hidden])").first()
        .waitFor();
      assert.equal(await page.locator(".upload-error").isVisible(), false);
      assert.equal(
        await page.locator(".upload-done").textContent(),
        "Done: 8,001 rows added. Open the table",
      );
      assert.equal(await sqlite3("select town from towns where id = 8001"), "Köln");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
  editorService(),
);
