/** Custom SQL, `_where=`, `_through=`, labels, facets and related rows never read hidden tables. */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { signedIn } from "./_auth_helpers.ts";

const ALICE_ONLY = { id: "alice" };
const privateTables = (...tables: string[]) => ({
  databases: {
    shop: { tables: Object.fromEntries(tables.map((t) => [t, { allow: ALICE_ONLY }])) },
  },
});
const sql = (text: string) => `/shop.json?sql=${encodeURIComponent(text)}`;

Deno.test("custom SQL may not read a table the actor cannot view", async () => {
  await using svc = shopService({ secret: "s", metadata: privateTables("orders") });
  for (
    const text of [
      "select * from orders",
      'select * from "ORDERS"',
      "select * from [orders]",
      "select count(*) from products where exists (select 1 from main.orders)",
      "select name from sqlite_master",
    ]
  ) {
    const response = await svc.client.get(sql(text));
    assert.equal(response.status, 403, text);
    assert.equal((response.json() as { ok: boolean }).ok, false);
  }
  assert.equal((await svc.client.get(sql("select * from products"))).status, 200);
  // order_items is visible; its name merely contains "order".
  assert.equal((await svc.client.get(sql("select * from order_items"))).status, 200);
  const alice = await svc.client.get(sql("select * from orders"), {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(alice.status, 200);
});

Deno.test("custom SQL needs execute-sql: allow_sql and default_allow_sql", async () => {
  {
    await using locked = shopService({ secret: "s", metadata: { allow_sql: ALICE_ONLY } });
    assert.equal((await locked.client.get(sql("select 1"))).status, 403);
    assert.equal((await locked.client.get("/shop/-/query.json?sql=select+1")).status, 403);
    const alice = await locked.client.get(sql("select 1"), {
      cookies: signedIn(locked, { id: "alice" }),
    });
    assert.equal(alice.status, 200);
  }
  await using off = shopService({ secret: "s", settings: { default_allow_sql: false } });
  assert.equal((await off.client.get(sql("select 1"))).status, 403);
  assert.equal((await off.client.get("/shop/products.json?_where=id>1")).status, 403);
});

Deno.test("_where= clauses may not reach into hidden tables", async () => {
  await using svc = shopService({ secret: "s", metadata: privateTables("order_items") });
  const sneaky = "/shop/products.json?_where=" +
    encodeURIComponent("id in (select product_id from order_items)");
  assert.equal((await svc.client.get(sneaky)).status, 403);
  assert.equal((await svc.client.get("/shop/products.json?_where=id%3E3")).status, 200);
});

Deno.test("_through= may not filter through a hidden table", async () => {
  await using svc = shopService({ secret: "s", metadata: privateTables("order_items") });
  const through = JSON.stringify({ table: "order_items", column: "order_id", value: "A/1001" });
  const url = `/shop/products.json?_through=${encodeURIComponent(through)}`;
  assert.equal((await svc.client.get(url)).status, 403);
  const alice = await svc.client.get(url, { cookies: signedIn(svc, { id: "alice" }) });
  assert.equal(alice.status, 200);
});

Deno.test("foreign key labels and facet labels do not come from hidden tables", async () => {
  await using svc = shopService({ secret: "s", metadata: privateTables("categories") });
  const labels = await svc.client.get("/shop/products.json?_labels=on&_size=1");
  assert.equal(labels.status, 200);
  assert.doesNotMatch(labels.text, /Kitchen/);
  const facet = await svc.client.get("/shop/products.json?_facet=category_id");
  const results = (facet.json() as {
    facet_results: { results: { category_id: { results: { label: unknown }[] } } };
  }).facet_results.results.category_id.results;
  assert.deepEqual(results.map((r) => r.label), ["1", "2", "3"]);
  const html = await svc.client.get("/shop/products");
  assert.doesNotMatch(html.text, /Kitchen/);

  const alice = signedIn(svc, { id: "alice" });
  const aliceLabels = await svc.client.get("/shop/products.json?_labels=on&_size=1", {
    cookies: alice,
  });
  assert.match(aliceLabels.text, /Kitchen/);
});

Deno.test("a row's related tables leave out tables the actor cannot view", async () => {
  await using svc = shopService({ secret: "s", metadata: privateTables("order_items") });
  const url = "/shop/products/1.json?_extras=foreign_key_tables";
  const anonymous = (await svc.client.get(url)).json() as { foreign_key_tables: unknown[] };
  assert.deepEqual(anonymous.foreign_key_tables, []);
  const alice = (await svc.client.get(url, { cookies: signedIn(svc, { id: "alice" }) }))
    .json() as { foreign_key_tables: { other_table: string }[] };
  assert.deepEqual(alice.foreign_key_tables.map((t) => t.other_table), ["order_items"]);
  const html = await svc.client.get("/shop/products/1");
  assert.doesNotMatch(html.text, /order_items/);
});

Deno.test("--crossdb: /_memory queries cannot read hidden tables of attached databases", async () => {
  const metadata = {
    ...SHOP_METADATA,
    databases: { shop: { tables: { orders: { allow: ALICE_ONLY } } } },
  };
  await using svc = new Service({ files: [buildShopDb()], crossdb: true, secret: "s", metadata });
  const memory = (text: string) => `/_memory.json?sql=${encodeURIComponent(text)}`;
  // SQLite finds unqualified names in attached schemas, so both forms must be refused.
  assert.equal((await svc.client.get(memory("select * from orders"))).status, 403);
  assert.equal((await svc.client.get(memory("select * from shop.orders"))).status, 403);
  assert.equal((await svc.client.get(memory("select * from shop.sqlite_master"))).status, 403);
  const visible = await svc.client.get(memory("select count(*) as n from [shop].products"));
  assert.equal(visible.status, 200);
  assert.deepEqual((visible.json() as { rows: unknown[] }).rows, [{ n: 9 }]);
  const alice = await svc.client.get(memory("select count(*) as n from shop.orders"), {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(alice.status, 200);
});

Deno.test("--crossdb: a database closed to SQL stays closed through /_memory", async () => {
  const metadata = { databases: { shop: { allow_sql: ALICE_ONLY } } };
  await using svc = new Service({ files: [buildShopDb()], crossdb: true, secret: "s", metadata });
  const url = `/_memory.json?sql=${encodeURIComponent("select * from products")}`;
  assert.equal((await svc.client.get(url)).status, 403);
  const qualified = `/_memory.json?sql=${encodeURIComponent("select 1 from shop.products")}`;
  assert.equal((await svc.client.get(qualified)).status, 403);
  assert.equal((await svc.client.get("/_memory.json?sql=select+1")).status, 200);
});
