import assert from "node:assert/strict";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";
import type { Service } from "../../../src/service.ts";
import { auth, withWriter } from "./_write_helpers.ts";

function as(svc: Service, id: string | null) {
  return id ? { cookies: { ds_actor: encodeActorCookie(svc.signer, { id }) } } : {};
}

/** The `href → label` pairs of the page's actions menu (the built-in chart and map aside). */
function menu(html: string): Record<string, string> {
  const block = /<details class="actions-menu">([\s\S]*?)<\/details>/.exec(html)?.[1] ?? "";
  const links: Record<string, string> = {};
  for (const [, href, label] of block.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)) {
    if (href === "#chart" || href === "#map") continue;
    links[href.replaceAll("&amp;", "&")] = label;
  }
  return links;
}

Deno.test("table and database menus offer the write actions the actor may use", async () => {
  await withWriter(async (svc) => {
    const table = await svc.client.get("/shop/products", as(svc, "writer"));
    assert.deepEqual(menu(table.text), {
      "#insert-row": "Insert row",
      "#paste-rows": "Paste rows",
      "#upload-rows": "Upload rows from a CSV file",
      "/shop/products/-/alter-table": "Alter table",
      "#drop-table": "Drop table",
    });
    const database = await svc.client.get("/shop", as(svc, "writer"));
    assert.deepEqual(menu(database.text), { "/-/create-table?database=shop": "Create table" });
    const row = await svc.client.get("/shop/products/1", as(svc, "writer"));
    assert.deepEqual(menu(row.text), { "#edit-row": "Edit row", "#delete-row": "Delete row" });
    // Views cannot be written to.
    const view = await svc.client.get("/shop/cheap_products", as(svc, "writer"));
    assert.deepEqual(menu(view.text), {});
    for (const actor of [null, "someone"]) {
      for (const path of ["/shop/products", "/shop", "/shop/products/1"]) {
        const page = await svc.client.get(path, as(svc, actor));
        assert.deepEqual(menu(page.text), {}, `${path} as ${actor}`);
        assert.doesNotMatch(page.text, /write\.js/);
      }
    }
  });
});

Deno.test("the forms carry each column's type and current value; NULL is not empty", async () => {
  await withWriter(async (svc) => {
    const row = await svc.client.get("/shop/products/3", as(svc, "writer"));
    const field = (column: string) =>
      new RegExp(`<div class="write-field" data-column="${column}"[^>]*>[\\s\\S]*?</div>`)
        .exec(row.text)?.[0] ?? "";
    // Mystery box: price and category are NULL, notes is an empty string.
    assert.match(field("price"), /data-affinity="REAL"\s+data-kind="null"/);
    assert.match(field("price"), /aria-label="price is NULL"\s+checked/);
    assert.match(field("notes"), /data-affinity="TEXT"\s+data-kind="text"/);
    assert.doesNotMatch(field("notes"), /checked/);
    assert.match(field("name"), />Mystery box<\/textarea>/);
    const priced = await svc.client.get("/shop/products/6", as(svc, "writer"));
    assert.match(priced.text, /value="12\.0"/, "a whole REAL shows as 12.0");
    const insert = await svc.client.get("/shop/products", as(svc, "writer"));
    assert.match(insert.text, /data-column="id"\s+data-affinity="INTEGER"/);
    assert.match(insert.text, /placeholder="automatic"/);
  });
});

Deno.test("only actions the actor holds get their form", async () => {
  await withWriter(async (svc) => {
    const editor = await svc.client.get("/shop/products/1", as(svc, "editor"));
    assert.match(editor.text, /id="edit-row"/);
    assert.doesNotMatch(editor.text, /id="delete-row"/);
    const table = await svc.client.get("/shop/products", as(svc, "editor"));
    assert.doesNotMatch(table.text, /id="insert-row"/);
  }, {
    metadata: { databases: { shop: { permissions: { "update-row": { id: "editor" } } } } },
  });
});

Deno.test("the create-table page lists the databases the actor may create tables in", async () => {
  await withWriter(async (svc) => {
    const page = await svc.client.get("/-/create-table?database=shop", as(svc, "writer"));
    assert.equal(page.status, 200);
    const option = page.text.match(
      /<option value="\/shop\/-\/create" data-key-columns="([^"]*)" selected>shop<\/option>/,
    );
    assert.ok(option, "shop is offered and chosen");
    // The pasted rows' help names the command that reads files as they are read (there is no
    // `vitrine import`).
    assert.match(page.text, /as <code>vitrine insert<\/code> reads a file/);
    // Foreign keys may point at each table's single primary key (order_items has a compound
    // one; log none; the full-text index's tables are hidden).
    const keys = JSON.parse(option[1].replaceAll("&#34;", '"').replaceAll("&quot;", '"'));
    assert.deepEqual(keys, { categories: ["id"], orders: ["id"], products: ["id"] });
    // Every type /-/create takes, and the registered column types.
    for (const type of ["text", "integer", "real", "numeric", "blob", "boolean", "datetime"]) {
      assert.match(page.text, new RegExp(`<option value="${type}">${type}</option>`));
    }
    for (const type of ["url", "email", "json", "markdown", "textarea", "date", "image"]) {
      assert.match(page.text, new RegExp(`<option value="column:${type}">${type}</option>`));
    }
    const anonymous = await svc.client.get("/-/create-table");
    assert.equal(anonymous.status, 403);
    const post = await svc.client.post("/-/create-table", { headers: auth(svc) });
    assert.equal(post.status, 405);
  });
});

Deno.test("the alter-table page's breadcrumbs lead to its database and table", async () => {
  await withWriter(async (svc) => {
    const page = await svc.client.get("/shop/products/-/alter-table", as(svc, "writer"));
    assert.equal(page.status, 200);
    const crumbs = /<ol class="crumbs"[^>]*>([\s\S]*?)<\/ol>/.exec(page.text)?.[1] ?? "";
    assert.deepEqual(
      [...crumbs.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((
        [, href, label],
      ) => [href, label]),
      [["/", "home"], ["/shop", "shop"], ["/shop/products", "products"]],
    );
  });
});
