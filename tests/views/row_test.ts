/** The row page: HTML with related rows, key validation, formats. */
import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";

Deno.test("the row page shows the row and links to the rows that reference it", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop/categories/2");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "max-age=5");
  const html = response.text;
  assert.match(html, /<title>shop: categories: 2<\/title>/);
  assert.match(html, /<body class="row db-shop table-categories">/);
  assert.match(html, /<td class="col-name type-str" role="cell" data-column="name">Garden<\/td>/);
  assert.match(
    html,
    /<a href="\/shop\/products\?category_id=2">3 rows<\/a>\s*from category_id in products/,
  );
  assert.match(html, /Templates considered: row-shop-categories.html, \*row.html/);
});

Deno.test("row pages of compound and tilde-encoded keys, foreign keys as links", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop/order_items/B~2F2001,4")).text;
  assert.match(html, /<a href="\/shop\/orders\/B~2F2001">B\/2001<\/a>/);
  assert.match(html, /<a href="\/shop\/products\/4">Garden hose<\/a>&nbsp;<em>4<\/em>/);
  const wrong = await svc.client.get("/shop/order_items/B~2F2001.json");
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json<{ error: string }>().error, "Expected 2 primary key values");
});

Deno.test("a row as CSV and in other JSON shapes", async () => {
  await using svc = shopService();
  assert.equal((await svc.client.get("/shop/categories/3.csv")).text, "id,name\r\n3,Tools\r\n");
  assert.deepEqual((await svc.client.get("/shop/categories/3.json?_shape=array")).json(), [
    { id: 3, name: "Tools" },
  ]);
});

Deno.test("the row page labels foreign keys like the table page; JSON stays raw", async () => {
  await using svc = shopService();
  const cell = /<a href="\/shop\/categories\/1">Kitchen<\/a>&nbsp;<em>1<\/em>/;
  assert.match((await svc.client.get("/shop/products")).text, cell);
  const html = (await svc.client.get("/shop/products/1")).text;
  assert.match(html, cell);
  // `_labels=off` turns labels off here too; a null foreign key stays empty.
  const off = (await svc.client.get("/shop/products/1?_labels=off")).text;
  assert.match(off, /<a href="\/shop\/categories\/1">1<\/a>/);
  const mystery = (await svc.client.get("/shop/products/3")).text;
  assert.match(mystery, /<td class="col-category_id type-none"[^>]*>&nbsp;<\/td>/);
  const { query_ms: _ms, ...body } = (await svc.client.get("/shop/products/1.json")).json();
  const { query_ms: _recorded, ...expected } = example("27-row.json").body as object & {
    query_ms: number;
  };
  assert.deepEqual(body, expected);
});

Deno.test("row pages accept the singular _extra=foreign_key_tables too (a deliberate difference)", async () => {
  await using svc = shopService();
  const plural = (await svc.client.get("/shop/categories/1.json?_extras=foreign_key_tables"))
    .json();
  const singular = (await svc.client.get("/shop/categories/1.json?_extra=foreign_key_tables"))
    .json();
  assert.deepEqual(singular.foreign_key_tables, plural.foreign_key_tables);
  assert.equal(singular.foreign_key_tables[0].other_table, "products");
});
