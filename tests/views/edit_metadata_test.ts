/**
 * Metadata edited while serving (`edit-metadata`): who may, what the pages and JSON show at once,
 * and that edits kept in an `--internal` file outlive a restart and reach every service sharing it.
 */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { signedIn, submitForm } from "./_auth_helpers.ts";

const EDITOR = { id: "editor" };
const READER = { id: "reader" };

function service(options: { internal?: string; files?: string[]; root?: boolean } = {}): Service {
  return new Service({
    files: options.files ?? [buildShopDb()],
    internal: options.internal,
    root: options.root,
    secret: "edit-metadata-test",
    // With --root the test grants nothing: root holds the action by itself.
    metadata: options.root
      ? SHOP_METADATA
      : { ...SHOP_METADATA, permissions: { "edit-metadata": { id: "editor" } } },
  });
}

async function editTable(svc: Service, body: Record<string, unknown>, actor: object = EDITOR) {
  return await svc.client.post("/shop/products/-/edit-metadata", {
    json: body,
    cookies: signedIn(svc, actor as never),
  });
}

interface TableJson {
  metadata:
    & { title?: string; description?: string; columns: Record<string, string> }
    & Record<
      string,
      unknown
    >;
}

async function tableMetadata(svc: Service): Promise<TableJson["metadata"]> {
  const response = await svc.client.get("/shop/products.json?_extra=metadata");
  assert.equal(response.status, 200, response.text);
  return (response.json() as TableJson).metadata;
}

Deno.test("edit-metadata: denied to anonymous visitors and to actors without the action", async () => {
  await using svc = service();
  const anonymous = await svc.client.post("/shop/products/-/edit-metadata", {
    json: { title: "Nope" },
  });
  assert.equal(anonymous.status, 403, anonymous.text);
  const reader = await editTable(svc, { title: "Nope" }, READER);
  assert.equal(reader.status, 403, reader.text);
  assert.match(reader.text, /permission to edit this metadata/);
  assert.equal((await svc.client.get("/shop/-/edit-metadata")).status, 403);
  assert.equal(
    (await svc.client.get("/shop/-/edit-metadata", { cookies: signedIn(svc, READER) })).status,
    403,
  );
  // Nothing changed, and the menus offer no edit link.
  assert.equal((await tableMetadata(svc)).title, undefined);
  const page = await svc.client.get("/shop/products", { cookies: signedIn(svc, READER) });
  assert.doesNotMatch(page.text, /edit-metadata/);
});

Deno.test("edit-metadata: an edit shows at once on the table page and in its JSON", async () => {
  await using svc = service();
  // Asked for twice first, so that the page cache keeps it and its tag is known.
  await tableMetadata(svc);
  const before = await svc.client.get("/shop/products.json?_extra=metadata");
  const oldTag = before.headers.get("etag");
  const edited = await editTable(svc, {
    title: "Everything we sell",
    description: "One row per product.",
    source: "The stock room",
    source_url: "https://example.com/stock",
    columns: { price: "Price in euros, VAT included" },
    units: { price: "EUR" },
  });
  assert.equal(edited.status, 200, edited.text);
  const answer = edited.json() as { ok: boolean; metadata: { fields: Record<string, string> } };
  assert.equal(answer.ok, true);

  const after = await svc.client.get("/shop/products.json?_extra=metadata");
  if (oldTag) assert.notEqual(after.headers.get("etag"), oldTag, "the tag changes with an edit");
  const metadata = (after.json() as TableJson).metadata;
  assert.equal(metadata.title, "Everything we sell");
  assert.equal(metadata.description, "One row per product.");
  assert.equal(metadata.columns.price, "Price in euros, VAT included");
  assert.deepEqual(metadata.units, { price: "EUR" });
  // A revalidation with the old tag gets the new page, not a 304.
  if (oldTag) {
    const revalidated = await svc.client.get("/shop/products.json?_extra=metadata", {
      headers: { "if-none-match": oldTag },
    });
    assert.equal(revalidated.status, 200);
  }

  const html = (await svc.client.get("/shop/products")).text;
  assert.match(html, /Everything we sell/);
  assert.match(html, /One row per product\./);
  assert.match(html, /<a href="https:\/\/example\.com\/stock">The stock room<\/a>/);
  assert.match(html, /title="Price in euros, VAT included"/);
  const all = (await svc.client.get("/-/metadata.json")).json() as {
    databases: { shop: { tables: { products: { title: string } } } };
  };
  assert.equal(all.databases.shop.tables.products.title, "Everything we sell");

  // An empty value drops the edit: the files' metadata shows again.
  assert.equal((await editTable(svc, { title: "" })).status, 200);
  assert.equal((await tableMetadata(svc)).title, undefined);
  assert.equal((await tableMetadata(svc)).description, "One row per product.");
});

Deno.test("edit-metadata: the HTML form (CSRF) edits a database, linked from its menu", async () => {
  await using svc = service();
  const cookies = signedIn(svc, EDITOR);
  const databasePage = await svc.client.get("/shop", { cookies });
  assert.match(databasePage.text, /href="\/shop\/-\/edit-metadata"[^>]*>Edit metadata/);
  const tablePage = await svc.client.get("/shop/products", { cookies });
  assert.match(tablePage.text, /href="\/shop\/products\/-\/edit-metadata"[^>]*>Edit metadata/);

  // Without the form's token the POST is refused.
  const forged = await svc.client.post("/shop/-/edit-metadata", {
    data: { title: "Forged" },
    cookies,
  });
  assert.equal(forged.status, 403);

  const saved = await submitForm(svc, "/shop/-/edit-metadata", {
    title: "The corner shop's books",
    description: "Edited <b>in the browser</b>",
  }, cookies);
  assert.equal(saved.status, 302, saved.text);
  assert.equal(saved.headers.get("location"), "/shop");
  const page = (await svc.client.get("/shop")).text;
  assert.match(page, /The corner shop&#39;s books|The corner shop&#x27;s books/);
  assert.match(page, /Edited &lt;b&gt;in the browser&lt;\/b&gt;/, "escaped, never raw HTML");
  const form = (await svc.client.get("/shop/products/-/edit-metadata", { cookies })).text;
  assert.match(form, /name="description:price"/);
  assert.match(form, /name="unit:price"/);

  const bad = await svc.client.post("/shop/products/-/edit-metadata", {
    json: { colour: "red" },
    cookies,
  });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Invalid key: colour/);
  const badColumn = await editTable(svc, { columns: { nope: "x" } });
  assert.equal(badColumn.status, 400);
  assert.match(badColumn.text, /no column nope/);
});

Deno.test("edit-metadata: root holds the action; no one else does unless granted", async () => {
  await using svc = service({ root: true });
  assert.equal((await editTable(svc, { title: "Editor's" }, EDITOR)).status, 403);
  const response = await editTable(svc, { title: "Root's title" }, { id: "root" });
  assert.equal(response.status, 200, response.text);
  assert.equal((await tableMetadata(svc)).title, "Root's title");
});

Deno.test("edit-metadata: kept in --internal across restarts, seen by a second service", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-edit-metadata-" });
  try {
    const shop = buildShopDb(dir);
    const internal = `${dir}/internal.db`;
    {
      await using first = service({ files: [shop], internal });
      await using second = service({ files: [shop], internal });
      // The second service has read the (empty) edits already.
      assert.equal((await tableMetadata(second)).title, undefined);
      assert.equal((await editTable(first, { title: "Shared title" })).status, 200);
      assert.equal((await tableMetadata(second)).title, "Shared title");
      assert.equal(
        (await second.client.get("/-/metadata.json")).json().databases.shop.tables.products
          .title,
        "Shared title",
      );
    }
    await using restarted = service({ files: [shop], internal });
    assert.equal((await tableMetadata(restarted)).title, "Shared title");
    assert.match((await restarted.client.get("/shop/products")).text, /Shared title/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("edit-metadata: an edit longer than max_returned_bytes is saved, answered as saved, and shown", async () => {
  // The byte cap is for what a visitor's query returns, not for Vitrine's reading of its own edits.
  await using svc = new Service({
    files: [buildShopDb()],
    secret: "edit-metadata-test",
    settings: { max_returned_bytes: 1000 },
    metadata: { ...SHOP_METADATA, permissions: { "edit-metadata": { id: "editor" } } },
  });
  const description = "A long description.".repeat(80);
  const response = await editTable(svc, { description });
  // It was a 400 "returns more data than this server allows" for an edit already committed.
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json().ok, true);
  assert.equal((await tableMetadata(svc)).description, description);
});
