/**
 * Every hook fires at its trigger with the documented parameters, and its answer has the
 * documented effect: the kitchen-sink fixture plugin against the shop database, through
 * `svc.client` wherever the trigger is a request.
 *
 * CLI hooks (`register_commands`, `publish_subcommand`) and `vitrine serve` start-up failure are
 * tested in tests/cli/main_test.ts; tracing in tests/http/trace_test.ts; the table, row, database
 * and query pages' hooks in tests/plugins/page_hooks_test.ts.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../src/service.ts";
import { Request } from "../../src/http/request.ts";
import { HOOK_NAMES } from "../../src/plugins/hookspecs.ts";
import { fillMagicParameters } from "../../src/views/query/magic_parameters.ts";
import { cannedQueryFor } from "../../src/config/canned_query_catalog.ts";
import { calls, callsOf } from "../fixtures/plugins/kitchen_sink.ts";
import { fromFileUrl } from "./test_paths.ts";
import { sqliteConnection } from "../../src/db/engine.ts";

export const kitchenSinkPath = fromFileUrl(
  new URL("../fixtures/plugins/kitchen_sink.ts", import.meta.url),
);

/** Runs `fn` with a shop service that loads the kitchen sink; `calls` starts empty. */
async function withKitchenSink(
  fn: (svc: Service) => Promise<void>,
  options: ServiceOptions = {},
): Promise<void> {
  calls.length = 0;
  await using svc = shopService({ plugins: [kitchenSinkPath], ...options });
  await fn(svc);
}

Deno.test("prepare_connection: functions, aggregates and collations in the read workers", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const db = svc.get_database("shop");
    const result = await db.execute(
      "select kitchen_sink_double(21), kitchen_sink_database(), " +
        "(select kitchen_sink_sum(id) from products), " +
        "(select group_concat(name, ',') from (select name from categories " +
        "order by name collate kitchen_sink_reverse))",
    );
    assert.deepEqual([...result.rows[0]], [42, "shop", 45, "Tools,Kitchen,Garden"]);
    // The read ran in a worker: the main thread never prepared a connection for it.
    assert.equal(svc.readPool().size, 3);
  });
});

Deno.test("prepare_connection: the main-thread write connection gets the functions too", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const db = svc.get_database("shop");
    await db.execute_write("insert into log (message, level) values (kitchen_sink_double(4), 'x')");
    const doubled = await db.execute_write_fn((conn) =>
      sqliteConnection(conn).execute("select kitchen_sink_double(50)").fetchone()
    );
    assert.deepEqual([...doubled as unknown[]], [100]);
    assert.equal((await db.execute("select message from log where level = 'x'")).rows[0][0], "8");
    const prepared = callsOf("prepare_connection").filter((args) => args.database === "shop");
    assert.ok(prepared.length >= 1);
    assert.equal(prepared[0].svc, svc);
    assert.equal(
      typeof (prepared[0].conn as { create_function: unknown }).create_function,
      "function",
    );
  });
});

Deno.test("prepare_connection: with num_sql_threads 0 reads use main-thread connections", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup(); // plugins load at start-up
    const db = svc.get_database("shop");
    assert.equal((await db.execute("select kitchen_sink_double(3)")).rows[0][0], 6);
    assert.ok(callsOf("prepare_connection").some((args) => args.database === "shop"));
  }, { settings: { num_sql_threads: 0 } });
});

Deno.test("prepare_jinja2_environment: a filter and a global used by a plugin template", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/-/kitchen-sink/template");
    assert.equal(response.status, 200);
    assert.match(response.text, /<p class="shout">HELLO!<\/p>/);
    assert.match(response.text, /<p class="global">global from the kitchen sink<\/p>/);
    const [args] = callsOf("prepare_jinja2_environment");
    assert.equal(args.env, svc.templates.env);
    assert.equal(args.svc, svc);
    assert.equal(callsOf("prepare_jinja2_environment").length, 1, "once, at start-up");
  });
});

Deno.test("extra_template_vars: the object (from a function returning an async function) reaches the template", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/-/kitchen-sink/template");
    assert.match(response.text, /<p class="var">custom:kitchen_sink.html<\/p>/);
    await svc.client.get("/");
    const index = callsOf("extra_template_vars").find((args) => args.view_name === "index")!;
    assert.deepEqual(
      Object.keys(index).sort(),
      ["columns", "database", "request", "svc", "table", "template", "view_name"],
    );
    assert.equal(index.template, "index.html");
    assert.equal(index.database, null);
    assert.equal(index.table, null);
    assert.equal(index.columns, null);
    assert.equal(index.svc, svc);
    assert.equal((index.request as Request).path, "/");
  });
});

Deno.test("extra_css_urls, extra_js_urls, extra_body_script: links and scripts on every page", async () => {
  await withKitchenSink(async (svc) => {
    const html = (await svc.client.get("/")).text;
    assert.match(html, /<link rel="stylesheet" href="\/kitchen-sink.css">/);
    assert.match(
      html,
      /<link rel="stylesheet" href="\/-\/static-plugins\/kitchen_sink\/kitchen.css" integrity="sha384-kitchen" crossorigin="anonymous">/,
    );
    assert.match(
      html,
      /<script nonce="[^"]*" type="module" src="\/-\/static-plugins\/kitchen_sink\/kitchen.js"><\/script>/,
    );
    assert.match(html, /<script nonce="[^"]+" src="\/kitchen-sink-plain.js"><\/script>/);
    // Treated as safe: the quotes are not escaped.
    assert.match(
      html,
      /<script nonce="[^"]*" type="module">console.log\('kitchen sink body script'\);<\/script>\s*<\/body>/,
    );
    for (const hook of ["extra_css_urls", "extra_js_urls", "extra_body_script"]) {
      const [args] = callsOf(hook);
      assert.equal(args.view_name, "index", hook);
      assert.equal(args.template, "index.html", hook);
      assert.equal(args.svc, svc, hook);
    }
  });
});

Deno.test("menu_links: items appear in the navigation menu", async () => {
  await withKitchenSink(async (svc) => {
    const html = (await svc.client.get("/", { headers: { "x-kitchen-actor": "ada" } })).text;
    assert.match(html, /<a href="\/-\/kitchen-sink\/menu">Kitchen sink menu<\/a>/);
    const [args] = callsOf("menu_links");
    assert.deepEqual(args.actor, { id: "ada", from: "kitchen_sink" });
    assert.equal(args.svc, svc);
    assert.equal((args.request as Request).path, "/");
  });
});

Deno.test("jump_items_sql: a plugin's items are found by /-/jump", async () => {
  await withKitchenSink(async (svc) => {
    const body = (await svc.client.get("/-/jump?q=sink")).json() as {
      matches: Record<string, unknown>[];
    };
    assert.deepEqual(body.matches.find((match) => match.type === "sink"), {
      name: "kitchen-sink",
      url: "/-/kitchen-sink/menu",
      type: "sink",
      description: "A plugin item",
      display_name: "Kitchen sink",
    });
    const [args] = callsOf("jump_items_sql");
    assert.equal(args.svc, svc);
    assert.equal((args.request as Request).path, "/-/jump");
  });
});

Deno.test("register_routes: patterns (strings and RegExps) with named groups reach the view", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/-/kitchen-sink/hello/Ada", {
      headers: { "x-kitchen-actor": "ada" },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), {
      name: "Ada",
      actor: { id: "ada", from: "kitchen_sink" },
      scope_type: "http",
    });
    const [view] = callsOf("route:hello");
    assert.equal(view.svc, svc);
    assert.deepEqual((view.request as Request).url_vars, { name: "Ada" });
    assert.deepEqual(callsOf("register_routes"), [{ svc }]);
  });
});

Deno.test("register_routes: NotFound is a 404, Forbidden a 403, send() streams a response", async () => {
  await withKitchenSink(async (svc) => {
    const missing = await svc.client.get("/-/kitchen-sink/not-found");
    assert.equal(missing.status, 404);
    assert.match(missing.text, /No kitchen sink here/);
    const forbidden = await svc.client.get("/-/kitchen-sink/forbidden");
    assert.equal(forbidden.status, 403);
    const sent = await svc.client.get("/-/kitchen-sink/send");
    assert.equal(sent.status, 202);
    assert.equal(sent.headers.get("x-sent"), "yes");
    assert.equal(sent.text, "sent by send");
  });
});

Deno.test("forbidden: the hook's Response replaces the 403 page; null keeps the default", async () => {
  await withKitchenSink(async (svc) => {
    const replaced = await svc.client.get("/-/kitchen-sink/forbidden");
    assert.equal(replaced.status, 403);
    assert.equal(replaced.text, "<h1>Kitchen sink says no: Kitchen sink is private</h1>");
    const [args] = callsOf("forbidden");
    assert.equal(args.svc, svc);
    assert.equal(args.message, "Kitchen sink is private");
    assert.equal((args.request as Request).path, "/-/kitchen-sink/forbidden");

    const normal = await svc.client.get("/", { headers: { "x-kitchen-actor": "kitchen-banned" } });
    assert.equal(normal.status, 403);
    assert.doesNotMatch(normal.text, /Kitchen sink says no/);
    assert.equal(callsOf("forbidden").length, 2);
  });
});

Deno.test("handle_exception: a Response (from an awaitable function) replaces the 500", async () => {
  await withKitchenSink(async (svc) => {
    const handled = await svc.client.get("/-/kitchen-sink/boom");
    assert.equal(handled.status, 418);
    assert.equal(handled.text, "Handled: kitchen sink boom");
    const [args] = callsOf("handle_exception");
    assert.equal(args.svc, svc);
    assert.ok(args.exception instanceof Error);
    assert.equal((args.request as Request).path, "/-/kitchen-sink/boom");

    const other = await svc.client.get("/-/kitchen-sink/other-error");
    assert.equal(other.status, 500);
    assert.match(other.text, /an ordinary failure/);
    assert.equal(callsOf("handle_exception").length, 2);
  });
});

Deno.test("asgi_wrapper: the wrapped handler adds a header to every response", async () => {
  await withKitchenSink(async (svc) => {
    for (const path of ["/", "/.json", "/-/kitchen-sink/not-found", "/-/static/app.css"]) {
      const response = await svc.client.get(path);
      assert.equal(response.headers.get("x-kitchen-sink"), "wrapped", path);
    }
    assert.deepEqual(callsOf("asgi_wrapper"), [{ svc }]);
  });
});

Deno.test("startup: runs once, awaited, before the first request", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    await svc.client.get("/");
    await svc.invoke_startup();
    assert.deepEqual(callsOf("startup"), [{ svc }]);
  });
});

Deno.test("startup: a failure rejects invoke_startup naming the plugin and fails requests", async () => {
  await withKitchenSink(async (svc) => {
    await assert.rejects(() => svc.invoke_startup(), (error: Error) => {
      assert.equal(error.name, "PluginError");
      assert.equal(
        error.message,
        'Plugin "kitchen_sink" failed in startup: The kitchen sink refuses to start',
      );
      assert.equal((error.cause as Error).message, "The kitchen sink refuses to start");
      return true;
    });
    const response = await svc.client.get("/");
    assert.equal(response.status, 500);
    // Clients learn only that start-up failed; the plugin's message is for the server log.
    assert.match(response.text, /failed to start/);
    assert.doesNotMatch(response.text, /kitchen sink/);
  }, {
    metadata: { plugins: { kitchen_sink: { fail_startup: true } } },
  });
});

Deno.test("get_metadata: merged with the local metadata, which wins", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const metadata = svc.metadata();
    assert.equal(metadata.instance().title, "Corner Shop", "local title wins");
    assert.equal(metadata.instance().description_html, "<em>from the kitchen sink</em>");
    const shop = metadata.database("shop");
    assert.equal(shop.description, "Shop described by the kitchen sink");
    assert.ok((shop.queries as Record<string, unknown>).products_by_category, "local kept");
    assert.deepEqual(svc.plugin_config("kitchen_sink"), { configured_by: "get_metadata" });
    const body = (await svc.client.get("/-/metadata.json")).json();
    assert.equal(body.title, "Corner Shop");
    assert.equal(body.description_html, "<em>from the kitchen sink</em>");
    const [args] = callsOf("get_metadata");
    assert.equal(args.svc, svc);
    assert.deepEqual(
      Object.keys(args).sort(),
      ["actor", "database", "key", "svc", "table"],
    );
  });
});

Deno.test("actor_from_request: the plugin's actor (from an awaitable function) is the request's actor", async () => {
  await withKitchenSink(async (svc) => {
    const response = await svc.client.get("/-/actor.json", {
      headers: { "x-kitchen-actor": "grace" },
    });
    assert.deepEqual(response.json(), { ok: true, actor: { id: "grace", from: "kitchen_sink" } });
    assert.deepEqual((await svc.client.get("/-/actor.json")).json(), { ok: true, actor: null });
    const [args] = callsOf("actor_from_request");
    assert.equal(args.svc, svc);
    assert.equal((args.request as Request).path, "/-/actor.json");
  });
});

Deno.test("actors_from_ids: the first implementation's mapping is used", async () => {
  await withKitchenSink(async (svc) => {
    assert.deepEqual(await svc.actors_from_ids(["ada", 7]), {
      ada: { id: "ada", name: "Kitchen ada" },
      7: { id: 7, name: "Kitchen 7" },
    });
    assert.deepEqual(callsOf("actors_from_ids"), [{ svc, actor_ids: ["ada", 7] }]);
  });
});

Deno.test("register_permissions: the plugin's Permission is registered at start-up", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const permission = svc.get_permission("ksc") as unknown as Record<string, unknown>;
    assert.equal(permission.name, "kitchen-sink-cook");
    assert.equal(permission.takes_database, true);
    assert.equal(svc.get_permission("kitchen-sink-cook"), permission);
    assert.deepEqual(callsOf("register_permissions"), [{ svc }]);
  });
});

Deno.test("permission_allowed: true allows, false denies, null leaves the default", async () => {
  await withKitchenSink(async (svc) => {
    assert.equal(await svc.permission_allowed({ id: "chef" }, "kitchen-sink-cook", "shop"), true);
    assert.equal(await svc.permission_allowed({ id: "cat" }, "kitchen-sink-cook", "shop"), false);
    assert.equal(await svc.permission_allowed({ id: "cat" }, "view-instance"), true, "default");
    assert.equal(await svc.permission_allowed({ id: "kitchen-banned" }, "view-instance"), false);
    const denied = await svc.client.get("/.json", {
      headers: { "x-kitchen-actor": "kitchen-banned" },
    });
    assert.equal(denied.status, 403);
    const chef = callsOf("permission_allowed").find((args) =>
      (args.actor as { id?: string } | null)?.id === "chef"
    )!;
    assert.deepEqual(chef, {
      svc,
      actor: { id: "chef" },
      action: "kitchen-sink-cook",
      resource: "shop",
    });
  });
});

Deno.test("skip_csrf: true lets a cookie-bearing form POST through without a token", async () => {
  await withKitchenSink(async (svc) => {
    const form = {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      cookies: { ds_csrftoken: "not-a-real-token" },
      body: "a=1",
    };
    const skipped = await svc.client.post("/-/kitchen-sink/post", form);
    assert.equal(skipped.status, 200);
    assert.deepEqual(skipped.json(), { method: "POST" });
    const checked = await svc.client.post("/-/kitchen-sink/hello/x", form);
    assert.equal(checked.status, 403);
    const [args] = callsOf("skip_csrf");
    assert.equal(args.svc, svc);
    assert.equal((args.scope as { path: string }).path, "/-/kitchen-sink/post");
    assert.equal((args.scope as { type: string }).type, "http");
  });
});

Deno.test("register_magic_parameters: the prefix fills `_kitchen_*` parameters; unknown keys fail", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const request = Request.fake("/shop/kitchen_sink_magic");
    assert.deepEqual(
      fillMagicParameters(["_kitchen_sink", "plain"], request, svc.state.magicParameters),
      { _kitchen_sink: "sunk" },
    );
    assert.throws(
      () => fillMagicParameters(["_kitchen_drawer"], request, svc.state.magicParameters),
      /_kitchen_drawer/,
    );
    assert.deepEqual(callsOf("register_magic_parameters"), [{ svc }]);
  });
});

Deno.test("canned_queries: the plugin's queries are canned queries of the database", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    const query = await cannedQueryFor(svc, "shop", "kitchen_sink_query", null);
    assert.equal(query?.sql, "select kitchen_sink_double(:n) as doubled");
    assert.equal(await cannedQueryFor(svc, "shop", "kitchen_sink_for_actor", null), null);
    const forActor = await cannedQueryFor(svc, "shop", "kitchen_sink_for_actor", { id: "ada" });
    assert.equal(forActor?.sql, "select 'ada' as who", "a bare SQL string is a definition");
    const args = callsOf("canned_queries").find((a) => a.actor !== null)!;
    assert.deepEqual(args, { svc, database: "shop", actor: { id: "ada" } });
  });
});

Deno.test("canned queries without the hook: metadata's, answered at once, each a copy", async () => {
  const queries = {
    by_name: { sql: "select * from products where name = :name", title: "By name" },
    shorthand: "select 1 as one",
  };
  await using svc = shopService({ metadata: { databases: { shop: { queries } } } });
  await svc.invoke_startup();
  assert.equal(svc.hooks.has("canned_queries"), false);
  const found = cannedQueryFor(svc, "shop", "by_name", null);
  assert.ok(!(found instanceof Promise), "no promise when metadata alone decides");
  assert.deepEqual(found, { ...queries.by_name, name: "by_name" });
  assert.deepEqual(cannedQueryFor(svc, "shop", "shorthand", { id: "ada" }), {
    sql: "select 1 as one",
    name: "shorthand",
  });
  (found as Record<string, unknown>).sql = "changed";
  assert.equal(queries.by_name.sql, "select * from products where name = :name");
  assert.equal(
    (cannedQueryFor(svc, "shop", "by_name", null) as { sql: string }).sql,
    queries.by_name.sql,
  );
  assert.equal(cannedQueryFor(svc, "shop", "products", null), null, "a table is not a query");
  assert.equal(cannedQueryFor(svc, "shop", "toString", null), null, "nor an inherited member");
  assert.equal(cannedQueryFor(svc, "other", "by_name", null), null);
  // The same answers through the pages: the query runs, and a table of no query name is a table.
  const page = await svc.client.get("/shop/shorthand.json?_shape=array");
  assert.deepEqual(await page.json(), [{ one: 1 }]);
  assert.equal((await svc.client.get("/shop/products.json")).status, 200);
});

Deno.test("register_output_renderer and register_facet_classes are collected at start-up", async () => {
  await withKitchenSink(async (svc) => {
    await svc.invoke_startup();
    assert.ok(svc.state.renderers.has("kitchensink"));
    assert.ok(
      svc.state.facetClasses.some((cls) => (cls as { type?: string }).type === "kitchen"),
    );
    assert.deepEqual(callsOf("register_output_renderer"), [{ svc }]);
    assert.equal(callsOf("register_facet_classes").length, 1);
  });
});

Deno.test("/-/plugins.json lists the plugin's name, version, hooks, static and templates", async () => {
  await withKitchenSink(async (svc) => {
    const listing = (await svc.client.get("/-/plugins.json")).json();
    assert.deepEqual(listing, [{
      name: "kitchen_sink",
      static: true,
      templates: true,
      version: "9.8.7",
      hooks: [
        "actor_from_request",
        "actors_from_ids",
        "asgi_wrapper",
        "canned_queries",
        "database_actions",
        "extra_body_script",
        "extra_css_urls",
        "extra_js_urls",
        "extra_template_vars",
        "filters_from_request",
        "forbidden",
        "get_metadata",
        "handle_exception",
        "jump_items_sql",
        "menu_links",
        "permission_allowed",
        "prepare_connection",
        "prepare_jinja2_environment",
        "publish_subcommand",
        "register_commands",
        "register_facet_classes",
        "register_magic_parameters",
        "register_output_renderer",
        "register_permissions",
        "register_routes",
        "render_cell",
        "skip_csrf",
        "startup",
        "table_actions",
      ],
    }]);
    const all = (await svc.client.get("/-/plugins.json?all=1")).json() as { name: string }[];
    assert.ok(all.some((plugin) => plugin.name === "vitrine.actor_auth"));
  });
});

Deno.test("a plugin's static/ folder is served at /-/static-plugins/<name>/", async () => {
  await withKitchenSink(async (svc) => {
    const js = await svc.client.get("/-/static-plugins/kitchen_sink/kitchen.js");
    assert.equal(js.status, 200);
    assert.equal(js.text, 'console.log("kitchen sink static");\n');
    assert.match(js.headers.get("content-type") ?? "", /javascript/);
    const css = await svc.client.get("/-/static-plugins/kitchen_sink/kitchen.css");
    assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
    assert.equal((await svc.client.get("/-/static-plugins/kitchen_sink/nope.js")).status, 404);
    const escape = await svc.client.get("/-/static-plugins/kitchen_sink/..%2F..%2Fkitchen_sink.ts");
    assert.equal(escape.status, 404);
  });
});

Deno.test("the kitchen sink and the newer-hooks fixture together implement every hook", async () => {
  const plugin = await import(kitchenSinkPath);
  const newer: Record<string, unknown> = await import("../fixtures/plugins/newer_hooks.ts");
  const missing = HOOK_NAMES.filter((hook) =>
    typeof plugin[hook] !== "function" && typeof newer[hook] !== "function"
  );
  assert.deepEqual(missing, []);
});

Deno.test("register_routes: a view answering through send keeps every Set-Cookie header", async () => {
  await using svc = shopService();
  svc.pm.register({
    register_routes: () => [[
      /^\/-\/two-cookies$/,
      async ({ send }: { send: (message: Record<string, unknown>) => Promise<void> }) => {
        await send({
          type: "http.response.start",
          status: 200,
          headers: [["content-type", "text/plain"], ["set-cookie", "a=1; Path=/"], [
            "set-cookie",
            "b=2; Path=/",
          ]],
        });
        await send({ type: "http.response.body", body: "two cookies" });
      },
    ]],
  }, { name: "two-cookies" });
  const response = await svc.client.get("/-/two-cookies");
  assert.equal(response.text, "two cookies");
  assert.deepEqual(response.cookies, { a: "1", b: "2" });
});

Deno.test("register_routes: a body sent in several parts streams to the client", async () => {
  await using svc = shopService();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  svc.pm.register({
    register_routes: () => [[
      /^\/-\/ticker$/,
      async ({ send }: { send: (message: Record<string, unknown>) => Promise<void> }) => {
        await send({
          type: "http.response.start",
          status: 200,
          headers: [["content-type", "text/plain"]],
        });
        await send({ type: "http.response.body", body: "first\n", more_body: true });
        await gate; // the client already has the start of the response
        await send({ type: "http.response.body", body: "second\n" });
      },
    ]],
  }, { name: "ticker" });
  const response = await svc.handler()(new globalThis.Request("http://localhost/-/ticker"));
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value, "first\n");
  release();
  assert.equal((await reader.read()).value, "second\n");
  assert.equal((await reader.read()).done, true);
});
