/** Plugin output renderers on table and row pages, and the `_json` / `_extra` modifiers. */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";

const renderer = new URL("../fixtures/plugins/renderer_plugin.ts", import.meta.url).href;

Deno.test("a registered renderer serves its extension and is linked when can_render agrees", async () => {
  await using svc = shopService({ plugins: [renderer] });
  const txt = await svc.client.get("/shop/categories.txt");
  assert.equal(txt.status, 200);
  assert.equal(
    txt.text,
    "table:categories\nid=1 name=Kitchen\nid=2 name=Garden\nid=3 name=Tools",
  );
  const html = (await svc.client.get("/shop/categories")).text;
  assert.match(html, /<a href="\/shop\/categories.txt"[^>]*data-format="txt"[^>]*>txt<\/a>/);
  // order_items has no `name` column: can_render says no, so no link.
  assert.doesNotMatch((await svc.client.get("/shop/order_items")).text, /data-format="txt"/);
  const legacy = await svc.client.get("/shop/categories/1.shout");
  assert.equal(legacy.status, 201);
  assert.equal(legacy.headers.get("content-type"), "text/x-shout");
  assert.equal(legacy.headers.get("x-shout"), "yes");
  assert.equal(legacy.text, "1 ROWS");
  assert.equal((await svc.client.get("/shop/categories.nope")).status, 404);
});

Deno.test("an unknown format is a 404 before any SQL runs, on every page of rows", async () => {
  // Counts to a billion: were the format checked after the query, each answer would be a 400
  // "SQL Interrupted" after the whole time limit.
  const slow = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 1e9) " +
    "select count(*) as n from c";
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.queries.slow = { sql: slow };
  await using svc = shopService({ metadata, settings: { sql_time_limit_ms: 3000 } });
  const where = encodeURIComponent(`id in (${slow})`);
  for (
    const path of [
      `/shop/products.xml?_where=${where}`,
      `/shop/-/query.xml?sql=${encodeURIComponent(slow)}`,
      "/shop/slow.xml",
      "/shop/products/1.xml",
    ]
  ) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 404, path);
    assert.match(response.text, /Unknown format: xml/, path);
  }
  // The row page's own suffix and the built-in formats still answer.
  assert.equal((await svc.client.get("/shop/products/1.csv")).status, 200);
  assert.equal((await svc.client.get("/shop/products.ndjson")).status, 200);
});

Deno.test("_json parses JSON columns, unknown _extra and bad _shape are 400s", async () => {
  await using svc = shopService();
  const parsed = (await svc.client.get("/shop/products.json?_json=tags&_col=tags&_size=1"))
    .json<{ rows: unknown[] }>();
  assert.deepEqual(parsed.rows, [{ id: 1, tags: ["steel", "sharp"] }]);
  const extra = await svc.client.get("/shop/products.json?_extra=nope");
  assert.equal(extra.status, 400);
  assert.equal(extra.json<{ error: string }>().error, "Unknown _extra: nope");
  // What every JavaScript object has is no extra either, on a table or a query page.
  for (const path of ["/shop/products.json", "/shop/-/query.json?sql=select+1"]) {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const sep = path.includes("?") ? "&" : "?";
      const inherited = await svc.client.get(`${path}${sep}_extra=${name}`);
      assert.equal(inherited.status, 400, `${path} _extra=${name}`);
      assert.equal(inherited.json<{ error: string }>().error, `Unknown _extra: ${name}`);
    }
  }
  const shape = await svc.client.get("/shop/products.json?_shape=xyz");
  assert.equal(shape.json<{ error: string }>().error, "Invalid _shape: xyz");
  // A view has no primary key, as the reference reports it.
  const view = await svc.client.get("/shop/cheap_products.json?_shape=object");
  assert.equal(
    view.json<{ error: string }>().error,
    "_shape=object not available for tables with no primary keys",
  );
  const rowid = await svc.client.get("/shop/log.json?_shape=object");
  assert.equal(
    rowid.json<{ error: string }>().error,
    "_shape=object not available for tables with no primary keys",
  );
});

Deno.test("more extras: count with a filter, columns on its own, query, _ttl", async () => {
  await using svc = shopService();
  const response = await svc.client.get(
    "/shop/products.json?price__lt=5&_extra=count&_extra=columns&_extra=query&_size=0&_ttl=0",
  );
  assert.equal(response.headers.get("cache-control"), "no-cache");
  const data = response.json<Record<string, unknown>>();
  assert.equal(data.count, 2);
  assert.deepEqual(data.columns, [
    "id",
    "name",
    "category_id",
    "price",
    "tags",
    "added",
    "notes",
  ]);
  assert.deepEqual(data.rows, []);
  assert.deepEqual((data.query as { params: unknown }).params, { p0: 5 });
});

Deno.test("_sort=_rank orders an FTS5 search by relevance, _q searches text without FTS", async () => {
  await using svc = shopService();
  const ranked = (await svc.client.get("/shop/products.json?_search=set&_sort=_rank&_col=name"))
    .json<{ rows: { name: string }[] }>();
  assert.deepEqual(ranked.rows.map((r) => r.name), ["Screwdriver set"]);
  const q = (await svc.client.get("/shop/log.json?_q=late")).json<{ rows: unknown[] }>();
  assert.deepEqual(q.rows, [{ rowid: 3, message: "supplier late", level: "warning" }]);
});

Deno.test("a table without a full-text index has a search box for _q; one with an index, _search", async () => {
  await using svc = shopService();
  const box = (html: string) => html.match(/<input id="table-search"[^>]*>/)?.[0] ?? "";
  const log = (await svc.client.get("/shop/log?_q=late")).text;
  assert.match(box(log), /name="_q" value="late" placeholder="Search log"/);
  assert.match(log, /1 row where search matches &quot;late&quot;/);
  // The box carries _q itself: no hidden copy that would send the old words again.
  assert.doesNotMatch(log, /type="hidden" name="_q"/);
  assert.match(box((await svc.client.get("/shop/products")).text), /name="_search"/);
});
