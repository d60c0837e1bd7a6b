/**
 * The edit form picks its widget by column type: a date picker for `date`, a JSON text area that
 * refuses bad JSON before sending for `json`, a URL input for `url`; a value a picker cannot show
 * stays plain text. Each save is checked in the SQLite file.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import type { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";

const EDITOR = { id: "editor" };

let current: Service;
function typedService(): Service {
  current = shopService({
    metadata: {
      databases: {
        shop: {
          permissions: {
            "update-row": EDITOR,
            "insert-row": EDITOR,
            "set-column-type": { id: "root" },
          },
          tables: {
            products: { column_types: { added: "date", tags: "json" } },
            log: { column_types: { message: "url" } },
          },
        },
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

function fileRow(sql: string, params: (string | number)[]): Record<string, unknown> {
  const conn = Connection.open(current.get_database("shop").path!, { mode: "ro" });
  try {
    const result = conn.query(sql, params);
    return Object.fromEntries(result.columns.map((c, i) => [c, result.rows[0][i]]));
  } finally {
    conn.close();
  }
}

browserTest(
  "typed columns: a date picker, a JSON editor that refuses bad JSON, a URL input",
  async (page, base) => {
    await signIn(page, base);
    await page.goto(`${base}/shop/products/1#edit-row`);
    const edit = page.locator("#edit-row form");
    const added = edit.getByLabel("added", { exact: true });
    assert.equal(await added.getAttribute("type"), "date");
    assert.equal(await added.inputValue(), "2024-01-15");
    const tags = edit.getByLabel("tags", { exact: true });
    assert.equal(await tags.evaluate((el) => el.tagName), "TEXTAREA");
    assert.match(
      await edit.locator('.write-field[data-column="tags"] .write-type').innerText(),
      /json/,
    );

    await added.fill("2024-06-30");
    await tags.fill('["steel", "new"');
    await edit.getByRole("button", { name: "Save changes" }).click();
    const error = edit.locator(".write-error");
    await error.waitFor();
    assert.match(await error.innerText(), /^tags must be valid JSON/);
    // Nothing was sent.
    assert.deepEqual(fileRow("select added, tags from products where id = ?", [1]), {
      added: "2024-01-15",
      tags: '["steel","sharp"]',
    });
    await tags.fill('["steel", "new"]');
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".messages .message-info", { hasText: "Row updated" }).waitFor();
    assert.deepEqual(fileRow("select added, tags from products where id = ?", [1]), {
      added: "2024-06-30",
      tags: '["steel", "new"]',
    });

    // A value the date picker cannot show is edited as text, not shown empty.
    await page.goto(`${base}/shop/products/7#edit-row`);
    const seven = page.locator("#edit-row form").getByLabel("added", { exact: true });
    assert.equal(await seven.evaluate((el) => el.tagName), "TEXTAREA");
    assert.equal(await seven.inputValue(), "2024-03-10 14:30:00");

    // A url column: the browser's own check, before any request.
    await page.goto(`${base}/shop/log/1#edit-row`);
    const form = page.locator("#edit-row form");
    const message = form.getByLabel("message", { exact: true });
    assert.equal(await message.getAttribute("type"), "url");
    await message.fill("not a web address");
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.locator(".write-error").waitFor();
    assert.match(await form.locator(".write-error").innerText(), /^message: /);
    assert.equal(fileRow("select message from log where rowid = ?", [1]).message, "stock counted");
    await message.fill("https://example.com/stock");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".messages .message-info", { hasText: "Row updated" }).waitFor();
    assert.equal(
      fileRow("select message from log where rowid = ?", [1]).message,
      "https://example.com/stock",
    );
  },
  typedService,
);

// A 1×1 PNG, served from another origin than the page's.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

browserTest(
  "typed columns: an image column shows a thumbnail from another origin, with alt text",
  async (page, base) => {
    const images = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(PNG, { headers: { "content-type": "image/png" } }),
    );
    try {
      const url = `http://127.0.0.1:${images.addr.port}/pan.png`;
      await current.get_database("shop").execute_write(
        "update products set tags = ? where id = 1",
        [url],
      );
      const set = await current.client.post("/shop/products/-/set-column-type", {
        json: { column: "tags", column_type: { type: "image" } },
        headers: { authorization: `Bearer ${current.create_token("root")}` },
      });
      assert.equal(set.status, 200, set.text);
      await page.goto(`${base}/shop/products/1`);
      const image = page.getByRole("img", { name: "tags image" });
      await image.waitFor();
      assert.equal(await image.getAttribute("loading"), "lazy");
      // Loaded: the page's policy allowed the image's origin.
      const loaded = () =>
        image.evaluate((img) => {
          const { complete, naturalWidth } = img as unknown as Record<string, number | boolean>;
          return complete ? naturalWidth : -1;
        });
      let width = await loaded();
      for (let tries = 0; width === -1 && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        width = await loaded();
      }
      assert.equal(width, 1, "the thumbnail loaded");
    } finally {
      await images.shutdown();
    }
  },
  typedService,
);
