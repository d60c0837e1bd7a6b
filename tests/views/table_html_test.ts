/** The HTML table page as a user sees it: rows, filters, facets, pagination, hooks, permissions. */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
// Loaded at run time by path; imported here too so that its hook types are checked with the test.
import type * as _tableHooks from "../fixtures/plugins/table_hooks_plugin.ts";

const plugin = (name: string) => new URL(`../fixtures/plugins/${name}`, import.meta.url).href;

Deno.test("a filtered, faceted table page shows rows, the filter, facet counts and a next link", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop/products?price__gt=5&_facet=category_id&_size=3");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "max-age=5");
  const html = response.text;
  assert.match(html, /<title>shop: products: 6 rows where price &gt; 5<\/title>/);
  assert.match(html, /6 rows where price &gt; 5/);
  assert.match(html, /<body class="table db-shop table-products">/);
  // The filter the user applied is pre-selected in the form.
  assert.match(html, /<option selected>price<\/option>/);
  assert.match(html, /<option value="gt" selected>&gt;<\/option>/);
  assert.match(html, /name="_filter_value_1" value="5"/);
  // Facet values with counts, labelled through the foreign key.
  assert.match(html, /category_id=2">Garden<\/a>\s*<span class="facet-count">3<\/span>/);
  // Rows, with links to the row and to the referenced category.
  assert.match(html, /<a href="\/shop\/products\/1">1<\/a>/);
  assert.match(html, /<a href="\/shop\/categories\/1">Kitchen<\/a>&nbsp;<em>1<\/em>/);
  assert.match(
    html,
    /href="http:\/\/localhost\/shop\/products\?price__gt=5&amp;_facet=category_id&amp;_size=3&amp;_next=5" rel="next">Next page/,
  );
  // The export menu: this page in each format, and every row streamed.
  assert.match(html, /This page: 3 rows of 6/);
  assert.match(
    html,
    /href="\/shop\/products.csv\?price__gt=5&amp;_facet=category_id&amp;_size=3&amp;_dl=on"/,
  );
  assert.match(html, /data-format="json" aria-label="This page as JSON"/);
  assert.match(
    html,
    /href="\/shop\/products.csv\?price__gt=5&amp;_facet=category_id&amp;_stream=on&amp;_dl=on"/,
  );
  assert.match(html, /All 6 rows, streamed/);
  assert.match(html, /CREATE TABLE products/);
  assert.match(html, /Templates considered: table-shop-products.html, \*table.html/);
  assert.match(
    response.headers.get("link") ?? "",
    /products\.json\?price__gt=5.*rel="alternate"/,
  );
});

Deno.test("the filter form redirects to a clean URL with col__op arguments", async () => {
  await using svc = shopService();
  const response = await svc.client.get(
    "/shop/products?_filter_column_1=price&_filter_op_1=gt&_filter_value_1=5&price__gt=5" +
      "&_filter_column=notes&_filter_op=isnull__1&_filter_value=&_sort=price&_sort_by_desc=on&_size=3",
  );
  assert.equal(response.status, 302);
  assert.equal(
    response.headers.get("location"),
    "/shop/products?price__gt=5&notes__isnull=1&_size=3&_sort_desc=price",
  );
});

Deno.test("sort links, search box and the view badge", async () => {
  await using svc = shopService();
  const sorted = (await svc.client.get("/shop/products?_sort_desc=price&_search=garden")).text;
  assert.match(sorted, /sorted by price descending/);
  assert.match(sorted, /search matches &quot;garden&quot;/);
  assert.match(sorted, /name="_search" value="garden"/);
  assert.match(sorted, /\(sorted descending\)/);
  assert.match(sorted, /Garden hose/);
  assert.doesNotMatch(sorted, /Chef knife/);
  const view = (await svc.client.get("/shop/cheap_products")).text;
  assert.match(view, /<span class="badge">view<\/span>/);
  assert.match(view, /View definition/);
  assert.match(view, /Tea towel/);
});

Deno.test("a compound primary key table links rows through a Link column", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop/order_items")).text;
  assert.match(html, /<a href="\/shop\/order_items\/A~2F1001,1">A\/1001,1<\/a>/);
  assert.match(html, /<a href="\/shop\/orders\/A~2F1001">A\/1001<\/a>/);
});

Deno.test("plugin hooks: render_cell, table_actions, filters_from_request, facet classes", async () => {
  await using svc = shopService({ plugins: [plugin("table_hooks_plugin.ts")] });
  const html = (await svc.client.get("/shop/products?_cheap=1")).text;
  assert.match(html, /WOODEN SPOON/);
  assert.match(html, /<strong class="price" data-id="2">4.25<\/strong>/);
  assert.match(html, /href="\/-\/edit\/products"/);
  assert.match(html, /where price is cheap/);
  assert.doesNotMatch(html, /HAMMER/);
  const data = (await svc.client.get("/shop/products.json?_cheap=1&_facet_length=name")).json<
    {
      rows: { name: string }[];
      facet_results: { results: Record<string, { results: unknown[] }> };
    }
  >();
  assert.deepEqual(data.rows.map((r) => r.name), ["Wooden spoon", "Tea towel"]);
  assert.deepEqual(data.facet_results.results.name.results, [
    { value: 9, label: 9, count: 1, toggle_url: "", selected: false },
    { value: 12, label: 12, count: 1, toggle_url: "", selected: false },
  ]);
});

Deno.test("a table with allow: false is forbidden, and _where needs execute-sql", async () => {
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.tables = { log: { allow: false } };
  metadata.databases.shop.allow_sql = false;
  {
    await using svc = shopService({ metadata });
    const denied = await svc.client.get("/shop/log.json");
    assert.equal(denied.status, 403);
    assert.equal((await svc.client.get("/shop/log/1.json")).status, 403);
    assert.equal((await svc.client.get("/shop/log")).status, 403);
    const where = await svc.client.get("/shop/products.json?_where=id>3");
    assert.equal(where.status, 403);
    assert.equal(where.json<{ error: string }>().error, "_where= is not allowed");
  }
  await using open = shopService();
  const data = (await open.client.get("/shop/products.json?_where=id>7&_col=id")).json<
    { rows: unknown[] }
  >();
  assert.deepEqual(data.rows, [{ id: 8 }, { id: 9 }]);
});

Deno.test("a _table-<db>-<table>.html include in --template-dir replaces the rows table", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-templates-" });
  Deno.writeTextFileSync(
    `${dir}/_table-shop-categories.html`,
    `<ul class="custom">{% for row in display_rows %}<li>{{ row["name"] }}: {{ row.display("id") }}</li>{% endfor %}</ul>`,
  );
  try {
    await using svc = shopService({ template_dir: dir });
    const html = (await svc.client.get("/shop/categories")).text;
    assert.match(html, /<li>Kitchen: <a href="\/shop\/categories\/1">1<\/a><\/li>/);
    assert.doesNotMatch(html, /rows-and-columns/);
    const other = (await svc.client.get("/shop/orders")).text;
    assert.match(other, /rows-and-columns/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("facets on the HTML page: configured ones first in their order, then the request's", async () => {
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.tables = {
    products: { facets: [{ date: "added" }, "category_id"] },
  };
  await using svc = shopService({ metadata });
  // Sorting by number of values would give name (9), tags (6), added (5), category_id (3);
  // `facet_results` groups by kind (column, date, array). The page follows the configuration.
  const response = await svc.client.get("/shop/products?_facet_array=tags&_facet=name");
  assert.equal(response.status, 200);
  const order = [...response.text.matchAll(/<section class="facet" data-column="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.deepEqual(order, ["added", "category_id", "tags", "name"]);
  // A configured facet asked for again keeps its configured place.
  const again = await svc.client.get("/shop/products?_facet=name&_facet=category_id");
  const order2 = [...again.text.matchAll(/<section class="facet" data-column="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.deepEqual(order2, ["added", "category_id", "name"]);
});
