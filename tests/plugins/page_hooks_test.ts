/**
 * Hooks whose trigger is a data page (database, table, row, query, canned query), through
 * `svc.client` with the kitchen-sink fixture plugin: each fires with the documented parameters
 * and its answer shows on the page.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../src/service.ts";
import type { Request } from "../../src/http/request.ts";
import { calls, callsOf } from "../fixtures/plugins/kitchen_sink.ts";
import { fromFileUrl } from "./test_paths.ts";

const kitchenSink = fromFileUrl(new URL("../fixtures/plugins/kitchen_sink.ts", import.meta.url));
const specnameSql = fromFileUrl(new URL("../fixtures/plugins/specname_sql.ts", import.meta.url));

async function withKitchenSink(
  fn: (svc: Service) => Promise<void>,
  options: ServiceOptions = {},
): Promise<void> {
  calls.length = 0;
  await using svc = shopService({ plugins: [kitchenSink], ...options });
  await fn(svc);
}

Deno.test("prepare_connection: a plugin's SQL function is callable from ?sql= through the worker pool", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get(
      "/shop/-/query.json?sql=" +
        encodeURIComponent(
          "select kitchen_sink_double(21) as d, kitchen_sink_database() as db, " +
            "kitchen_sink_in_worker() as w",
        ),
    );
    assert.equal(response.status, 200, response.text);
    // The functions came from the read worker's own `prepare_connection` call.
    assert.deepEqual(response.json().rows, [{ d: 42, db: "shop", w: 1 }]);
    assert.equal(svc.readPool().size, 3);
    // The spec's `/<db>?sql=` form too.
    const direct = await svc.client.get(
      "/shop.json?sql=" + encodeURIComponent("select kitchen_sink_sum(id) as s from products"),
    );
    assert.deepEqual(direct.json().rows, [{ s: 45 }]);
  });
});

Deno.test("prepare_connection: a hookimpl with specname works in the workers too", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get(
      "/shop/-/query.json?sql=" +
        encodeURIComponent("select specname_fn() as v, kitchen_sink_in_worker() as w"),
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json().rows, [{ v: "via specname", w: 1 }], "ran in a worker");
  }, { plugins: [kitchenSink, specnameSql] });
});

Deno.test("render_cell: the plugin's Markup replaces table and row cells", async () => {
  await withKitchenSink(async (svc) => {
    const table = await svc.client.get("/shop/products");
    assert.equal(table.status, 200);
    assert.match(table.text, /<strong class="kitchen-sink">Chef knife<\/strong>/);
    const row = await svc.client.get("/shop/products/1");
    assert.match(row.text, /<strong class="kitchen-sink">Chef knife<\/strong>/);
    const args = callsOf("render_cell").find((a) => a.column === "name")!;
    assert.deepEqual(
      Object.keys(args).sort(),
      ["column", "database", "request", "row", "svc", "table", "value"],
    );
    assert.equal(args.table, "products");
    assert.equal(args.database, "shop");
    assert.equal(args.svc, svc);
    assert.equal(typeof args.value, "string");
    // Other cells render as usual: the hook returned null for them.
    assert.match(table.text, /<td class="col-price type-float">34.5<\/td>/);
  });
});

Deno.test("render_cell: custom SQL cells are offered with table null", async () => {
  await withKitchenSink(async (svc) => {
    const page = await svc.client.get(
      "/shop/-/query?sql=" + encodeURIComponent("select name from products where id = 1"),
    );
    assert.equal(page.status, 200);
    assert.match(page.text, /Chef knife/);
    assert.doesNotMatch(page.text, /class="kitchen-sink"/);
    const args = callsOf("render_cell").find((a) => a.value === "Chef knife")!;
    assert.equal(args.table, null);
    assert.equal(args.database, "shop");
  });
});

Deno.test("table_actions: menu items on the table page", async () => {
  await withKitchenSink(async (svc) => {
    const page = await svc.client.get("/shop/products", {
      headers: { "x-kitchen-actor": "ada" },
    });
    assert.match(
      page.text,
      /<a href="\/-\/kitchen-sink\/table\/products">Kitchen sink table action<\/a>/,
    );
    const [args] = callsOf("table_actions");
    assert.equal(args.svc, svc);
    assert.deepEqual(args.actor, { id: "ada", from: "kitchen_sink" });
    assert.equal(args.database, "shop");
    assert.equal(args.table, "products");
    assert.equal((args.request as Request).path, "/shop/products");
  });
});

Deno.test("database_actions: menu items (from an awaitable function) on the database page", async () => {
  await withKitchenSink(async (svc) => {
    const page = await svc.client.get("/shop");
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      /<a href="\/-\/kitchen-sink\/database\/shop">Kitchen sink database action<\/a>/,
    );
    const [args] = callsOf("database_actions");
    assert.deepEqual(Object.keys(args).sort(), ["actor", "database", "request", "svc"]);
    assert.equal(args.database, "shop");
    assert.equal(args.actor, null);
  });
});

Deno.test("filters_from_request: where clauses, params and descriptions shape the table query", async () => {
  await withKitchenSink(async (svc) => {
    const json = await svc.client.get("/shop/products.json?_kitchen_sink_max_id=2");
    assert.deepEqual(json.json().rows.map((row: { id: number }) => row.id), [1, 2]);
    const html = await svc.client.get("/shop/products?_kitchen_sink_max_id=3");
    assert.match(html.text, /3 rows where id is at most 3 \(kitchen sink\)/);
    const all = await svc.client.get("/shop/products.json");
    assert.equal(all.json().rows.length, 9, "null means no filter");
    const [args] = callsOf("filters_from_request");
    assert.equal(args.svc, svc);
    assert.equal(args.database, "shop");
    assert.equal(args.table, "products");
    assert.equal((args.request as Request).path, "/shop/products.json");
  });
});

Deno.test("register_facet_classes: the plugin's facet kind answers _facet_<type>", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get(
      "/shop/categories.json?_facet_kitchen=name&_extra=facet_results",
    );
    assert.equal(response.status, 200, response.text);
    const facet = response.json().facet_results.results.name;
    assert.equal(facet.type, "kitchen");
    assert.deepEqual(
      facet.results.map((r: { label: string; count: number }) => [r.label, r.count]),
      [
        ["Mentions kitchen", 1],
      ],
    );
  });
});

Deno.test("register_output_renderer: a new format on table and query pages, with can_render", async () => {
  await withKitchenSink(async (svc) => {
    const table = await svc.client.get("/shop/products.kitchensink");
    assert.equal(table.status, 200);
    assert.equal(table.headers.get("x-kitchen-sink-renderer"), "1");
    const body = table.json();
    assert.equal(body.kitchen_sink, true);
    assert.equal(body.database, "shop");
    assert.equal(body.table, "products");
    assert.equal(body.view_name, "table");
    assert.equal(body.rows, 9);
    for (
      const key of [
        "svc",
        "columns",
        "rows",
        "sql",
        "query_name",
        "database",
        "table",
        "request",
        "error",
        "truncated",
        "view_name",
      ]
    ) {
      assert.ok(body.keys.includes(key), key);
    }
    const query = await svc.client.get(
      "/shop/-/query.kitchensink?sql=" + encodeURIComponent("select 1 as one"),
    );
    assert.equal(query.json().table, null);
    assert.equal(query.json().sql, "select 1 as one");
    // The HTML page links to the format.
    const html = await svc.client.get("/shop/products");
    assert.match(html.text, /href="\/shop\/products.kitchensink"/);
    // can_render false: no link.
    const declined = await svc.client.get(
      "/shop/-/query?sql=" + encodeURIComponent("select 1 as no_kitchen_sink"),
    );
    assert.doesNotMatch(declined.text, /\.kitchensink/);
  });
});

Deno.test("canned_queries: the plugin's queries run at /<db>/<name> and are listed", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/shop/kitchen_sink_query.json?n=21");
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json().rows, [{ doubled: 42 }]);
    const database = await svc.client.get("/shop");
    assert.match(
      database.text,
      /<a href="\/shop\/kitchen_sink_query"[^>]*>Kitchen sink query<\/a>/,
    );
    const forActor = await svc.client.get("/shop/kitchen_sink_for_actor.json", {
      headers: { "x-kitchen-actor": "ada" },
    });
    assert.deepEqual(forActor.json().rows, [{ who: "ada" }]);
    const anonymous = await svc.client.get("/shop/kitchen_sink_for_actor.json");
    assert.equal(anonymous.status, 404, "not defined for anonymous actors");
    const withActor = callsOf("canned_queries").find((args) => args.actor !== null)!;
    assert.equal(withActor.svc, svc);
    assert.equal(withActor.database, "shop");
  });
});

Deno.test("register_magic_parameters: a canned query gets `_kitchen_sink` filled in", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/shop/kitchen_sink_magic.json");
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json().rows, [{ magic: "sunk" }]);
  });
});

Deno.test("page hooks get the table page's parameters: view_name, database, table, columns", async () => {
  await withKitchenSink(async (svc) => {
    await svc.client.get("/shop/products");
    await svc.client.get("/shop/products/1");
    await svc.client.get("/shop");
    const views = callsOf("extra_template_vars");
    const table = views.find((args) => args.view_name === "table")!;
    assert.equal(table.template, "table.html");
    assert.equal(table.database, "shop");
    assert.equal(table.table, "products");
    assert.deepEqual(table.columns, [
      "id",
      "name",
      "category_id",
      "price",
      "tags",
      "added",
      "notes",
    ]);
    const row = views.find((args) => args.view_name === "row")!;
    assert.equal(row.table, "products");
    assert.equal(row.template, "row.html");
    const database = views.find((args) => args.view_name === "database")!;
    assert.equal(database.database, "shop");
    assert.equal(database.table, null);
  });
});
