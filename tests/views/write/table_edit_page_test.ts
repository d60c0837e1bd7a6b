import assert from "node:assert/strict";
import { buildShopDb, shopService } from "../../fixtures/shop.ts";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";
import { Service } from "../../../src/service.ts";

/** A shop where `editor` holds `actions` on every table. */
function serviceGranting(actions: string[]): Service {
  const grants = Object.fromEntries(actions.map((action) => [action, { id: "editor" }]));
  return shopService({ secret: "s", metadata: { databases: { shop: { permissions: grants } } } });
}

async function pageFor(svc: Service, path: string, actor: string | null): Promise<string> {
  const cookies: Record<string, string> = actor
    ? { ds_actor: encodeActorCookie(svc.signer, { id: actor }) }
    : {};
  const response = await svc.client.get(path, { cookies });
  assert.equal(response.status, 200);
  return response.text;
}

Deno.test("table page: inline and bulk editing only for actors holding update-row / delete-row", async () => {
  await using svc = serviceGranting(["update-row", "delete-row", "insert-row"]);
  const editor = await pageFor(svc, "/shop/products", "editor");
  assert.match(editor, /<div class="edit-bar" data-table-url="\/shop\/products"/);
  assert.match(editor, /data-update-url="\/shop\/products\/-\/update-rows"/);
  assert.match(editor, /data-delete-url="\/shop\/products\/-\/delete-rows"/);
  assert.match(editor, /<tr data-row="1">/);
  // One editor per column but the key, which is never edited inline.
  assert.match(editor, /<template data-cell-editor="name">/);
  assert.doesNotMatch(editor, /<template data-cell-editor="id">/);
  assert.match(editor, /<a href="#paste-rows">Paste rows<\/a>/);
  assert.match(editor, /id="paste-rows"/);
  // Compound keys and rowid tables name their rows as their URLs do.
  assert.match(await pageFor(svc, "/shop/order_items", "editor"), /<tr data-row="A~2F1001,1">/);
  assert.match(await pageFor(svc, "/shop/log", "editor"), /<tr data-row="1">/);

  for (const actor of [null, "someone"]) {
    const page = await pageFor(svc, "/shop/products", actor);
    assert.doesNotMatch(page, /edit-bar|data-row=|cell-editor|paste-rows|table-edit\.js/);
  }
  // Views are not edited: no bar, no row keys.
  const view = await pageFor(svc, "/shop/cheap_products", "editor");
  assert.doesNotMatch(view, /edit-bar|data-row=|table-edit\.js/);
});

Deno.test("table page: delete-row alone gives the selection without cell editors", async () => {
  await using svc = serviceGranting(["delete-row"]);
  const page = await pageFor(svc, "/shop/products", "editor");
  assert.match(page, /data-delete-url="\/shop\/products\/-\/delete-rows"/);
  assert.doesNotMatch(page, /data-update-url|data-cell-editor|data-edit-cell|id="bulk-edit"/);
  assert.doesNotMatch(page, /paste-rows/);
  assert.match(page, /Tick rows to delete several at once\./);
});

Deno.test("table page: an immutable database offers no editing", async () => {
  await using svc = new Service({
    secret: "s",
    immutables: [buildShopDb()],
    metadata: { databases: { shop: { permissions: { "update-row": { id: "editor" } } } } },
  });
  const page = await pageFor(svc, "/shop/products", "editor");
  assert.doesNotMatch(page, /edit-bar|data-row=/);
});
