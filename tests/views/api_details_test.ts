/**
 * API-DETAILS §2–§4 and §10 behaviours a scripting client relies on, checked end to end through
 * `svc.client`: every `_extra=` name of §2.1, `_json_infinity` in every JSON form, CSV cells.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { shopService } from "../fixtures/shop.ts";

const renderer = new URL("../fixtures/plugins/renderer_plugin.ts", import.meta.url).href;

/** Every `_extra=` name API-DETAILS §2.1 lists for table pages. */
const TABLE_EXTRAS = [
  "count",
  "count_truncated",
  "count_sql",
  "facet_results",
  "facets_timed_out",
  "suggested_facets",
  "human_description_en",
  "columns",
  "all_columns",
  "primary_keys",
  "column_details",
  "display_columns",
  "render_cell",
  "debug",
  "request",
  "query",
  "column_types",
  "set_column_type_ui",
  "metadata",
  "extras",
  "database",
  "table",
  "database_color",
  "renderers",
  "custom_table_templates",
  "sorted_facet_results",
  "table_definition",
  "view_definition",
  "is_view",
  "private",
  "expandable_columns",
  "form_hidden_args",
  "next_url",
];

/** A service over a one-table database holding infinite REAL values. */
function infinityService(): Service {
  const path = `${Deno.makeTempDirSync({ prefix: "vitrine-inf-" })}/inf.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  try {
    conn.exec(
      "create table inf (id integer primary key, x real);" +
        "insert into inf values (1, 9e999), (2, -9e999), (3, 1.5);",
    );
  } finally {
    conn.close();
  }
  return new Service({ files: [path] });
}

Deno.test("every _extra name of §2.1 answers on tables and views, each under its own key", async () => {
  await using svc = shopService();
  for (const table of ["products", "cheap_products"]) {
    for (const name of TABLE_EXTRAS) {
      const response = await svc.client.get(`/shop/${table}.json?_size=1&_extra=${name}`);
      assert.equal(response.status, 200, `${table} _extra=${name}`);
      assert.ok(name in response.json<Record<string, unknown>>(), `${table} _extra=${name}`);
    }
  }
  const all = (await svc.client.get("/shop/products.json?_size=0&_extra=extras"))
    .json<{ extras: { name: string }[] }>().extras.map((extra) => extra.name);
  for (const name of TABLE_EXTRAS) assert.ok(all.includes(name), `extras lists ${name}`);
});

Deno.test("_extra=render_cell: per row, the cells a render_cell hook answered, as strings", async () => {
  await using svc = shopService();
  const get = async () =>
    (await svc.client.get("/shop/categories.json?_size=2&_extra=render_cell"))
      .json<{ render_cell: unknown }>().render_cell;
  assert.deepEqual(await get(), [{}, {}]);
  svc.pm.register({
    render_cell: ({ value, column }: { value: unknown; column: string }) =>
      column === "name" && value === "Garden" ? "<b>Garden</b>" : null,
  }, { name: "garden" });
  assert.deepEqual(await get(), [{}, { name: "<b>Garden</b>" }]);
});

Deno.test("_extra=renderers: JSON and plugin formats that can render, with _labels=on for FKs", async () => {
  await using svc = shopService({ plugins: [renderer] });
  const categories = (await svc.client.get("/shop/categories.json?_extra=renderers"))
    .json<{ renderers: Record<string, string> }>().renderers;
  assert.deepEqual(categories, {
    json: "/shop/categories.json?_extra=renderers",
    txt: "/shop/categories.txt?_extra=renderers",
    shout: "/shop/categories.shout?_extra=renderers",
  });
  // order_items has foreign keys (labels asked for) and no `name` column (txt declines).
  const products = (await svc.client.get("/shop/order_items.json?_extra=renderers"))
    .json<{ renderers: Record<string, string> }>().renderers;
  assert.deepEqual(products, {
    json: "/shop/order_items.json?_extra=renderers&_labels=on",
    shout: "/shop/order_items.shout?_extra=renderers&_labels=on",
  });
  // HTML pages ask renderers whether they can render without this page's `_extra=`.
  for (const path of ["/shop/categories?_extra=count", "/shop/-/query?sql=select+1&_extra=x"]) {
    assert.equal((await svc.client.get(path)).status, 200, path);
  }
  const ui = (await svc.client.get("/shop/products.json?_size=0&_extra=set_column_type_ui"))
    .json<{ set_column_type_ui: unknown }>();
  assert.equal(ui.set_column_type_ui, null);
});

Deno.test("_json_infinity=on keeps Infinity in objects, bare shapes, _nl=on lines and queries", async () => {
  await using svc = infinityService();
  const text = async (path: string) => (await svc.client.get(path)).text;
  assert.equal(
    await text("/inf/inf.json?_json_infinity=on"),
    '{"ok":true,"next":null,"next_url":null,"rows":[{"id":1,"x":Infinity},{"id":2,"x":-Infinity},' +
      '{"id":3,"x":1.5}],"truncated":false}',
  );
  assert.match(await text("/inf/inf.json"), /"x":null\},\{"id":2,"x":null\}/);
  assert.equal(
    await text("/inf/inf.json?_shape=array&_nl=on&_json_infinity=1"),
    '{"id": 1, "x": Infinity}\n{"id": 2, "x": -Infinity}\n{"id": 3, "x": 1.5}',
  );
  assert.equal(
    await text("/inf/inf.json?_shape=array&_nl=on"),
    '{"id": 1, "x": null}\n{"id": 2, "x": null}\n{"id": 3, "x": 1.5}',
  );
  assert.equal(
    await text("/inf/-/query.json?sql=select+x+from+inf+where+id<3&_json_infinity=true"),
    '{"ok":true,"rows":[{"x":Infinity},{"x":-Infinity}],"truncated":false}',
  );
  assert.equal(
    await text("/inf/-/query.json?sql=select+x+from+inf&_shape=arrayfirst&_json_infinity=on"),
    "[Infinity,-Infinity,1.5]",
  );
});

Deno.test("CSV writes infinite floats as Python does (inf, -inf)", async () => {
  await using svc = infinityService();
  assert.equal(
    (await svc.client.get("/inf/inf.csv")).text,
    "id,x\r\n1,inf\r\n2,-inf\r\n3,1.5\r\n",
  );
});

Deno.test("integral REAL values print as 12.0 in every JSON form of table and row pages", async () => {
  await using svc = shopService();
  const text = async (path: string) => (await svc.client.get(path)).text;
  assert.match(await text("/shop/products.json?id=6"), /"price":12\.0,/);
  assert.match(await text("/shop/products.json?id=6&_shape=arrays"), /\[6,"Hammer",3,12\.0,/);
  assert.equal(
    await text("/shop/products.json?id__in=6,8&_shape=object&_col=price"),
    '{"6":{"id":6,"price":12.0},"8":{"id":8,"price":9.0}}',
  );
  assert.match(await text("/shop/cheap_products.json?_shape=array"), /"price":9\.0\}/);
  assert.match(await text("/shop/products/6.json"), /"price":12\.0,/);
  assert.match(await text("/shop/products/6.csv"), /,12\.0,/);
  // Values still parse as the same numbers; other columns are untouched.
  const row = (await svc.client.get("/shop/products.json?id=6")).json<
    { rows: { id: number }[] }
  >();
  assert.equal(row.rows[0].id, 6);
});
