/**
 * What issue 14's pages say in their HTML: values cut in a table link to their whole value,
 * error pages keep their place and give hints, hidden columns are announced, truncated results
 * say how many rows they hold of how many, and the built-in visualisation plugins add their
 * scripts only where they apply (and never a schema to someone who may not run SQL).
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";

const crumbs = (html: string) =>
  [...(/<ol class="crumbs"[^]*?<\/ol>/.exec(html)?.[0] ?? "").matchAll(/>([^<>]+)<\/a>/g)]
    .map((m) => m[1]);

Deno.test("a value cut in a table links to its row page, which shows it whole", async () => {
  await using svc = shopService({ settings: { truncate_cells_html: 5 } });
  const table = (await svc.client.get("/shop/products?id=5")).text;
  assert.match(
    table,
    /Trowe<a class="truncated-more" href="\/shop\/products\/5" title="Show all 6 characters on the row page" aria-label="Show all 6 characters on the row page">…<\/a>/,
  );
  const row = (await svc.client.get("/shop/products/5")).text;
  assert.match(row, /<td class="col-name type-str"[^>]*>Trowel<\/td>/);
});

Deno.test("error pages keep their breadcrumbs; a wrong row URL gets an example", async () => {
  await using svc = shopService();
  const table = await svc.client.get("/shop/nope");
  assert.equal(table.status, 404);
  assert.deepEqual(crumbs(table.text), ["home", "shop"]);
  const row = await svc.client.get("/shop/products/999");
  assert.equal(row.status, 404);
  assert.deepEqual(crumbs(row.text), ["home", "shop", "products"]);
  const database = await svc.client.get("/nowhere");
  assert.deepEqual(crumbs(database.text), ["home"]);
  const wrong = await svc.client.get("/shop/order_items/A~2F1001");
  assert.equal(wrong.status, 400);
  assert.deepEqual(crumbs(wrong.text), ["home", "shop", "order_items"]);
  assert.match(wrong.text, /Expected 2 primary key values/);
  assert.match(
    wrong.text,
    /Rows of order_items are addressed by their 2 key values \(order_id, product_id\), separated by commas: \/shop\/order_items\/&lt;order_id&gt;,&lt;product_id&gt;\. For example: <a href="\/shop\/order_items\/A~2F1001,1">/,
  );
  // JSON keeps the short message and gains no key.
  const json = (await svc.client.get("/shop/order_items/A~2F1001.json")).json();
  assert.deepEqual(Object.keys(json).sort(), ["error", "errors", "ok", "status", "title"]);
});

Deno.test("/favicon.ico answers with the icon", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/favicon.ico");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "image/svg+xml");
  assert.match(response.text, /^<svg /);
  assert.match(
    (await svc.client.get("/")).text,
    /<link rel="icon" href="\/-\/static\/favicon.svg"/,
  );
});

Deno.test("hidden columns are announced with a way back; facets' … links to all values", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop/products?_nocol=tags&_nocol=notes&_size=2")).text;
  assert.match(
    html,
    /2 columns hidden: tags, notes\. <a href="\/shop\/products\?_size=2">Show all columns<\/a>/,
  );
  const facet = (await svc.client.get("/shop/products?_facet=category_id&_facet_size=2")).text;
  assert.match(
    facet,
    /<li class="facet-truncated"><a href="\/shop\/products\?_facet=category_id&amp;_facet_size=max" aria-label="Show every category_id value">&hellip;<\/a><\/li>/,
  );
  const all = (await svc.client.get("/shop/products?_facet=category_id&_facet_size=max")).text;
  assert.doesNotMatch(all, /facet-truncated/);
});

Deno.test("a truncated query result says how many rows it shows of how many", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 3 } });
  const html = (await svc.client.get("/shop?sql=select+*+from+products")).text;
  assert.match(html, /<p class="query-summary">First 3 rows of 9<\/p>/);
  assert.match(html, /This page: 3 rows of 9/);
  assert.match(html, /All 9 rows, streamed/);
  assert.match(
    html,
    /href="\/shop.csv\?sql=select\+\*\+from\+products&amp;_stream=on&amp;_dl=on"/,
  );
  const streamed = (await svc.client.get("/shop.csv?sql=select+*+from+products&_stream=on")).text;
  assert.equal(streamed.trim().split(/\r?\n/).length, 10);
});

Deno.test("the index's … link names what it leads to", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/")).text;
  assert.match(
    html,
    /<a href="\/shop" class="more-link" aria-label="All tables and views in shop">&hellip;<\/a>/,
  );
});

Deno.test("visualisation plugins add their scripts where they apply", async () => {
  await using svc = shopService();
  const table = (await svc.client.get("/shop/products")).text;
  assert.match(
    table,
    /<script nonce="[^"]+" src="\/-\/static\/column-menu.js\?[0-9a-f]{8}"><\/script>/,
  );
  assert.match(
    table,
    /<script nonce="[^"]+" type="module" src="\/-\/static\/chart-view.js\?[0-9a-f]{8}">/,
  );
  assert.match(table, /<a href="#chart">Chart these rows<\/a>/);
  // No latitude and longitude: no map.
  assert.doesNotMatch(table, /map-view\.js|vendor\/map\.css|vitrineMap/);
  const database = (await svc.client.get("/shop")).text;
  assert.match(database, /<script nonce="[^"]+" type="module" src="\/-\/static\/code-editor.js\?/);
  const schema = JSON.parse(/globalThis\.vitrineSqlSchema = (.*);<\/script>/.exec(database)![1]);
  assert.deepEqual(schema.categories, ["id", "name"]);
  assert.deepEqual(schema.cheap_products, ["id", "name", "price"]);
  assert.equal(schema.products_fts, undefined, "hidden tables are left out");
  // Coordinates in a query's columns bring the map, with its settings.
  const sql = encodeURIComponent("select 1 as id, 51.5 as Latitude, -0.1 as lng");
  const query = (await svc.client.get(`/shop?sql=${sql}`)).text;
  assert.match(query, /<link rel="stylesheet" href="\/-\/static\/vendor\/map.css\?/);
  const config = JSON.parse(/globalThis\.vitrineMap = (.*);<\/script>/.exec(query)![1]);
  assert.equal(config.latitude, "Latitude");
  assert.equal(config.longitude, "lng");
  assert.equal(config.tile_url, "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
  assert.equal(config.max_points, 10000);
  // The bundles they import are served.
  for (const path of ["vendor/editor.js", "vendor/chart.js", "vendor/map.js", "vendor/map.css"]) {
    const asset = await svc.client.get(`/-/static/${path}`);
    assert.equal(asset.status, 200, path);
  }
});

Deno.test("no table names for completion without execute-sql; settings switch plugins off", async () => {
  const metadata = { ...SHOP_METADATA, allow_sql: false };
  {
    await using denied = shopService({ metadata });
    const html = (await denied.client.get("/shop")).text;
    assert.doesNotMatch(html, /vitrineSqlSchema/);
  }
  await using off = shopService({
    settings: { column_menus: false, charts: false, maps: false, sql_editor: false },
  });
  const table = (await off.client.get("/shop/products")).text;
  assert.doesNotMatch(table, /column-menu\.js|chart-view\.js|Chart these rows/);
  const sql = encodeURIComponent("select 51.5 as lat, -0.1 as lon");
  assert.doesNotMatch((await off.client.get(`/shop?sql=${sql}`)).text, /map-view\.js/);
  assert.doesNotMatch((await off.client.get("/shop")).text, /code-editor\.js|vitrineSqlSchema/);
});
