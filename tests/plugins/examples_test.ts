import assert from "node:assert/strict";
import { PluginRegistry } from "../../src/plugins/registry.ts";
import { loadPlugins } from "../../src/plugins/loader.ts";
import type { OutputRenderer, RouteView } from "../../src/plugins/hookspecs.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { Response } from "../../src/http/response.ts";
import { stubRequest, svc } from "./stubs.ts";

const examplesDir = new URL("../../examples/plugins/", import.meta.url).pathname;

async function loadExample(file: string): Promise<PluginRegistry> {
  const registry = new PluginRegistry();
  await loadPlugins({ specifiers: [`${examplesDir}${file}`], env: null }, registry);
  return registry;
}

Deno.test("sql_functions adds reverse_string and median to a connection", async () => {
  const registry = await loadExample("sql_functions.ts");
  const conn = Connection.open(":memory:");
  try {
    registry.callSync("prepare_connection", { conn, database: "data", svc });
    conn.exec("create table t (n integer); insert into t values (5), (1), (4), (2)");
    const result = conn.query(
      "select reverse_string('vitrine'), median(n), reverse_string(null) from t",
    );
    assert.deepEqual(result.rows, [["enirtiv", 3, null]]);
  } finally {
    conn.close();
  }
  assert.deepEqual(registry.plugins()[0], {
    name: "sql_functions",
    static: false,
    templates: false,
    version: "0.1.0",
    hooks: ["prepare_connection"],
  });
});

Deno.test("markdown_output renders rows as a Markdown table", async () => {
  const registry = await loadExample("markdown_output.ts");
  const [renderer] = await registry.call("register_output_renderer", { svc }) as OutputRenderer[];
  assert.equal(renderer.extension, "md");
  const response = await renderer.render({
    svc,
    columns: ["id", "name"],
    rows: [[1, "pipe | here"], [2, null]] as never,
    sql: "select id, name from t",
    query_name: null,
    database: "data",
    table: "t",
    request: stubRequest("/data/t.md"),
    error: null,
    truncated: false,
    view_name: "table",
  });
  assert.ok(response instanceof Response);
  assert.equal(response.content_type, "text/markdown; charset=utf-8");
  assert.equal(response.body, "| id | name |\n| --- | --- |\n| 1 | pipe \\| here |\n| 2 |  |\n");
});

Deno.test("hello_route answers /-/hello/<name> with JSON", async () => {
  const registry = await loadExample("hello_route.ts");
  const [routes] = await registry.call("register_routes", { svc }) as [RegExp, RouteView][][];
  const [pattern, view] = routes[0];
  const match = "/-/hello/Ada%20L".match(pattern);
  assert.ok(match?.groups);
  assert.equal("/-/hello/a/b".match(pattern), null);
  const request = stubRequest("/-/hello/Ada%20L", match.groups);
  // A view always gets scope, send and receive; this one needs only svc and request.
  const response = await view({ svc, request } as Parameters<RouteView>[0]) as Response;
  assert.equal(response.status, 200);
  assert.equal(response.content_type, "application/json; charset=utf-8");
  assert.deepEqual(JSON.parse(response.body as string), { greeting: "Hello, Ada L!", actor: null });
});
