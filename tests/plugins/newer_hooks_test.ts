/**
 * The hooks of the reference's 1.0a37 that Vitrine adds beside the spec's, through a real plugin
 * module (tests/fixtures/plugins/newer_hooks.ts) implementing every one of them: each is called
 * at its trigger with the documented arguments, and what it answers shows where a user looks.
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";
import { HOOK_NAMES } from "../../src/plugins/hookspecs.ts";
import { Request } from "../../src/http/request.ts";
import { BanUserEvent, calls, callsOf, ColorType } from "../fixtures/plugins/newer_hooks.ts";
import { fromFileUrl } from "./test_paths.ts";
import { signedIn, submitForm } from "../views/_auth_helpers.ts";

const plugin = fromFileUrl(new URL("../fixtures/plugins/newer_hooks.ts", import.meta.url));

/** The hooks the fixture implements: every hook added after the spec's, `menu_links` and
 * `jump_items_sql` (issue 41's, tested with the jump finder). */
const NEWER = HOOK_NAMES.slice(HOOK_NAMES.indexOf("jump_items_sql") + 1);

const METADATA = {
  ...SHOP_METADATA,
  permissions: {
    "insert-row": { id: "alice" },
    "update-row": { id: "alice" },
    "delete-row": { id: "alice" },
    "create-table": { id: "alice" },
    "drop-table": { id: "alice" },
    "alter-table": { id: "alice" },
  },
  databases: {
    shop: {
      ...SHOP_METADATA.databases.shop,
      queries: {
        ...SHOP_METADATA.databases.shop.queries,
        rename_log: { sql: "alter table log rename to journal", write: true },
      },
      tables: { categories: { column_types: { name: "color" } } },
    },
  },
};

function newerService(): Service {
  calls.length = 0;
  return shopService({ plugins: [plugin], metadata: METADATA, secret: "s" });
}

function bearer(svc: Service, id: string) {
  return { authorization: `Bearer ${svc.create_token(id)}` };
}

Deno.test("/-/plugins.json lists the fixture's hooks: every newer hook, each a known one", async () => {
  await using svc = newerService();
  const plugins = (await svc.client.get("/-/plugins.json")).json() as { hooks: string[] }[];
  assert.equal(plugins.length, 1);
  assert.deepEqual(plugins[0].hooks, [...NEWER].sort());
  for (const hook of plugins[0].hooks) assert.ok(HOOK_NAMES.includes(hook as never), hook);
});

Deno.test("register_actions: the action is registered, denied unless granted, offered by /-/create-token", async () => {
  await using svc = newerService();
  await svc.invoke_startup();
  assert.deepEqual(callsOf("register_actions").map((args) => Object.keys(args)), [["svc"]]);
  const action = svc.get_permission("nhe");
  assert.equal(action.name, "newer-hooks-edit");
  assert.equal(action.default, false);
  assert.equal(
    await svc.permission_allowed({ id: "carol" }, "newer-hooks-edit", ["shop", "log"]),
    false,
  );
  const form = await svc.client.get("/-/create-token", { cookies: signedIn(svc, { id: "alice" }) });
  assert.equal(form.status, 200);
  assert.match(form.text, /name="all:newer-hooks-edit"/);
  assert.match(form.text, /name="resource:shop:log:newer-hooks-edit"/);
  // Tables offer the actions on tables; canned queries those on queries.
  assert.match(form.text, /name="resource:shop:products_by_category:view-query"/);
  assert.doesNotMatch(form.text, /name="resource:shop:products_by_category:newer-hooks-edit"/);
  assert.doesNotMatch(form.text, /name="resource:shop:products:view-query"/);
});

Deno.test("permission_resources_sql: a resource deny beats a database allow; rows run with :actor_id", async () => {
  await using svc = newerService();
  const alice = { id: "alice" };
  assert.equal(await svc.permission_allowed(alice, "newer-hooks-edit", ["shop", "log"]), true);
  assert.equal(
    await svc.permission_allowed(alice, "newer-hooks-edit", ["shop", "products"]),
    false,
  );
  assert.equal(await svc.permission_allowed(alice, "newer-hooks-edit", "shop"), true);
  assert.equal(
    await svc.permission_allowed({ id: "bob" }, "newer-hooks-edit", ["shop", "log"]),
    true,
  );
  assert.equal(
    await svc.permission_allowed({ id: "bob" }, "newer-hooks-edit", ["shop", "orders"]),
    false,
  );
  const asked = callsOf("permission_resources_sql").find((args) =>
    args.action === "newer-hooks-edit"
  );
  assert.deepEqual(asked?.actor, alice);
});

Deno.test("permission_resources_sql: a page checking every table runs the plugin's SQL once", async () => {
  await using svc = newerService();
  await svc.invoke_startup();
  calls.length = 0;
  const response = await svc.client.get("/-/allowed.json?action=newer-hooks-edit&parent=shop", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(response.status, 200, response.text);
  const resources = response.json().items.map((item: { resource: string }) => item.resource);
  assert.ok(resources.includes("/shop/log") && resources.includes("/shop/orders"));
  assert.ok(!resources.includes("/shop/products"), "the resource deny wins");
  const asked = callsOf("permission_resources_sql").filter((args) =>
    args.action === "newer-hooks-edit"
  );
  assert.equal(asked.length, 1);
});

Deno.test("track_event + register_events + write_wrapper: the write API's events, with actor and resource", async () => {
  await using svc = newerService();
  const headers = bearer(svc, "alice");
  const post = async (path: string, json: unknown) => {
    const response = await svc.client.post(path, { json, headers });
    assert.ok(response.status < 300, `${path}: ${response.status} ${response.text}`);
  };
  await post("/shop/log/-/insert", { rows: [{ message: "hi", level: "info" }] });
  await post("/shop/log/-/insert", {
    rows: [{ message: "x", level: "y", source: "z" }],
    alter: true,
  });
  await post("/shop/orders/-/upsert", { rows: [{ id: "Z/1", customer: "Zed" }] });
  await post("/shop/-/create", {
    table: "notes",
    columns: [{ name: "id", type: "integer" }],
    pk: "id",
  });
  await post("/shop/orders/Z~2F1/-/update", { update: { customer: "Zoe" } });
  await post("/shop/notes/-/drop", { confirm: true });
  await post("/shop/orders/Z~2F1/-/delete", {});
  const events = callsOf("track_event").map((args) => args.event as BanUserEvent);
  const names = events.map((event) => event.name).filter((name) => name !== "ban-user");
  assert.deepEqual(names, [
    "insert-rows",
    "alter-table",
    "insert-rows",
    "upsert-rows",
    "create-table",
    "update-row",
    "drop-table",
    "delete-row",
  ]);
  const insert = events.find((event) => event.name === "insert-rows")!;
  assert.deepEqual(insert.actor, { id: "alice", token: "dstok" });
  assert.deepEqual(insert.resource, ["shop", "log"]);
  assert.deepEqual(insert.properties(), {
    database: "shop",
    table: "log",
    num_rows: 1,
    ignore: false,
    replace: false,
  });
  const alter = events.find((event) => event.name === "alter-table")!.properties();
  assert.match(String(alter.after_schema), /source/);
  assert.deepEqual(
    events.find((event) => event.name === "update-row")!.properties(),
    { database: "shop", table: "orders", pks: ["Z/1"] },
  );
  // The plugin's own event class was registered and its wrapper's event sent after each write.
  assert.ok(svc.eventClasses.has(BanUserEvent));
  assert.equal(events.filter((event) => event.name === "ban-user").length, 7);
  const wrapped = callsOf("write_wrapper")[0];
  assert.equal(wrapped.database, "shop");
  assert.equal(wrapped.transaction, true);
  assert.equal((wrapped.request as Request).path, "/shop/log/-/insert");
  // The wrapper ran on the write connection around the write: one row changed in between.
  const { before, after } = callsOf("write_wrapper:after")[0];
  assert.equal(Number(after) - Number(before), 1);
});

Deno.test("track_event: a writable canned query's rename is rename-table; svc.track_event sends a plugin's event", async () => {
  await using svc = newerService();
  const response = await svc.client.post("/shop/rename_log", {
    json: {},
    headers: { ...bearer(svc, "alice"), accept: "application/json" },
  });
  assert.equal(response.status, 200, response.text);
  const names = callsOf("track_event").map((args) => args.name);
  assert.deepEqual(names, ["rename-table", "ban-user", "execute-write"]);
  const renamed = callsOf("track_event")[0].event as { properties(): unknown };
  assert.deepEqual(renamed.properties(), {
    database: "shop",
    old_table: "log",
    new_table: "journal",
  });
  calls.length = 0;
  await svc.track_event(new BanUserEvent({ actor: { id: "mod" }, user: "spammer" }));
  assert.deepEqual(callsOf("track_event").map((args) => args.name), ["ban-user"]);
});

Deno.test("track_event: login, logout and create-token", async () => {
  calls.length = 0;
  await using svc = shopService({ plugins: [plugin], secret: "s", root: true });
  const token = encodeURIComponent(svc.rootToken!.value);
  assert.equal((await svc.client.get(`/-/auth-token?token=${token}`)).status, 302);
  const cookies = signedIn(svc, { id: "root" });
  const created = await submitForm(svc, "/-/create-token", {
    expire_type: "minutes",
    expire_duration: "5",
    "database:shop:execute-sql": "on",
  }, cookies);
  assert.equal(created.status, 200, created.text);
  const logout = await submitForm(svc, "/-/logout", {}, cookies);
  assert.equal(logout.status, 302);
  const events = callsOf("track_event").map((args) => args.event as BanUserEvent);
  assert.deepEqual(events.map((event) => event.name), ["login", "create-token", "logout"]);
  assert.deepEqual(events.map((event) => event.actor), [{ id: "root" }, { id: "root" }, {
    id: "root",
  }]);
  assert.deepEqual(events[1].properties(), {
    expires_after: 300,
    restrict_all: [],
    restrict_database: { shop: ["execute-sql"] },
    restrict_resource: {},
  });
});

Deno.test("the actions menus and top hooks: each page shows its plugin's items with the documented arguments", async () => {
  await using svc = newerService();
  const index = await svc.client.get("/");
  assert.match(index.text, /top of the homepage/);
  assert.match(index.text, /Homepage action/);
  const database = await svc.client.get("/shop");
  assert.match(database.text, /top of database shop/);
  const table = await svc.client.get("/shop/products");
  assert.match(table.text, /top of table products/);
  assert.doesNotMatch(table.text, /View action/);
  const view = await svc.client.get("/shop/cheap_products");
  assert.match(view.text, /View action for cheap_products/);
  const row = await svc.client.get("/shop/products/1");
  assert.match(row.text, /top of row 1/);
  assert.match(row.text, /Row action for 1/);
  const query = await svc.client.get("/shop/-/query?sql=select+1+as+one");
  assert.match(query.text, /top of query select 1 as one/);
  assert.match(query.text, /Query action for sql/);
  const canned = await svc.client.get("/shop/products_by_category?category=Garden");
  assert.match(canned.text, /top of canned products_by_category/);
  assert.match(canned.text, /top of stored products_by_category/);
  assert.match(canned.text, /Query action for products_by_category/);

  const rowArgs = callsOf("row_actions")[0];
  assert.deepEqual(Object.keys(rowArgs).sort(), [
    "actor",
    "database",
    "request",
    "row",
    "svc",
    "table",
  ]);
  assert.equal((rowArgs.row as Record<string, unknown>).id, 1);
  const queryArgs = callsOf("query_actions")[0];
  assert.equal(queryArgs.sql, "select 1 as one");
  assert.equal(queryArgs.query_name, null);
  assert.deepEqual(callsOf("view_actions")[0].view, "cheap_products");
  assert.deepEqual(callsOf("top_table")[0].table, "products");
  assert.equal(callsOf("top_query")[0].sql, "select 1 as one");
});

Deno.test("register_column_types: configured columns render through the type and refuse bad values", async () => {
  await using svc = newerService();
  await svc.invoke_startup();
  assert.equal(svc.columnTypes.find("color"), ColorType);
  assert.ok(svc.columnTypes.find("url"), "core's types are registered too");
  const table = await svc.client.get("/shop/categories");
  assert.match(table.text, /<span class="swatch">Kitchen<\/span>/);
  const headers = bearer(svc, "alice");
  const bad = await svc.client.post("/shop/categories/-/insert", {
    json: { row: { id: 9, name: "red" } },
    headers,
  });
  assert.equal(bad.status, 400);
  assert.match(bad.json().errors.join(" "), /Row 0 column "name": Color must start with #/);
  const good = await svc.client.post("/shop/categories/-/insert", {
    json: { row: { id: 9, name: "#abc" } },
    headers,
  });
  assert.equal(good.status, 201, good.text);
  assert.equal(good.json().rows[0].name, "#ABC");
});

Deno.test("register_token_handler: another scheme's bearer tokens sign in; a refused one is a 401", async () => {
  await using svc = newerService();
  const good = await svc.client.get("/-/actor.json", {
    headers: { authorization: "Bearer newer_good" },
  });
  assert.deepEqual(good.json().actor, { id: "token-user" });
  const revoked = await svc.client.get("/-/actor.json", {
    headers: { authorization: "Bearer newer_revoked" },
  });
  assert.equal(revoked.status, 401);
  assert.match(revoked.text, /Token revoked/);
  const unknown = await svc.client.get("/-/actor.json", {
    headers: { authorization: "Bearer something_else" },
  });
  assert.equal(unknown.json().actor, null);
});

Deno.test("jinja2_environment_from_request: a page renders with the environment the hook answers", async () => {
  await using svc = newerService();
  const plain = await svc.client.get("/shop");
  assert.match(plain.text, /top of database shop/);
  const custom = await svc.client.get("/shop?_newer_env=1");
  assert.match(custom.text, /rendered by the newer environment: database.html/);
  const args = callsOf("jinja2_environment_from_request")[0];
  assert.ok(args.request instanceof Request);
  assert.equal(args.env, svc.templates.env);
});

Deno.test("every newer hook is called at its trigger with exactly its documented arguments", async () => {
  await using svc = newerService();
  // Triggers: start-up, a permission check, pages, a write, a bearer token, a plugin event.
  await svc.invoke_startup();
  await svc.permission_allowed({ id: "alice" }, "newer-hooks-edit", ["shop", "log"]);
  for (
    const path of [
      "/",
      "/shop",
      "/shop/products",
      "/shop/cheap_products",
      "/shop/products/1",
      "/shop/-/query?sql=select+1",
      "/shop/products_by_category?category=Garden",
    ]
  ) {
    assert.equal((await svc.client.get(path)).status, 200, path);
  }
  await svc.client.post("/shop/log/-/insert", {
    json: { row: { message: "m" } },
    headers: bearer(svc, "alice"),
  });
  await svc.client.get("/-/actor.json", { headers: { authorization: "Bearer newer_good" } });
  const documented: Record<string, string[]> = {
    register_actions: ["svc"],
    permission_resources_sql: ["action", "actor", "svc"],
    track_event: ["event", "name", "svc"], // `name` is the fixture's own note of event.name
    register_events: ["svc"],
    row_actions: ["actor", "database", "request", "row", "svc", "table"],
    homepage_actions: ["actor", "request", "svc"],
    view_actions: ["actor", "database", "request", "svc", "view"],
    query_actions: ["actor", "database", "params", "query_name", "request", "sql", "svc"],
    top_homepage: ["request", "svc"],
    top_database: ["database", "request", "svc"],
    top_table: ["database", "request", "svc", "table"],
    top_row: ["database", "request", "row", "svc", "table"],
    top_query: ["database", "request", "sql", "svc"],
    top_canned_query: ["database", "query_name", "request", "svc"],
    top_stored_query: ["database", "query_name", "request", "svc"],
    register_column_types: ["svc"],
    write_wrapper: ["database", "request", "svc", "transaction"],
    register_token_handler: ["svc"],
    jinja2_environment_from_request: ["env", "request", "svc"],
  };
  assert.deepEqual(Object.keys(documented).sort(), [...NEWER].sort());
  for (const [hook, keys] of Object.entries(documented)) {
    const made = callsOf(hook);
    assert.ok(made.length > 0, `${hook} was never called`);
    for (const args of made) assert.deepEqual(Object.keys(args).sort(), keys, hook);
    assert.equal(made[0].svc, svc, `${hook} gets the service`);
  }
  assert.deepEqual(callsOf("top_canned_query")[0].query_name, "products_by_category");
  assert.deepEqual(callsOf("top_row")[0].row, {
    id: 1,
    name: "Chef knife",
    category_id: 1,
    price: 34.5,
    tags: '["steel","sharp"]',
    added: "2024-01-15",
    notes: "Hand wash only",
  });
  // The wrapper's event is sent as the write commits, then the write API's own.
  assert.deepEqual(callsOf("track_event").map((args) => args.name), ["ban-user", "insert-rows"]);
});
