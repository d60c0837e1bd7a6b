import assert from "node:assert/strict";
import { example, inOnePointOhShape, SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";

Deno.test("GET /shop.json matches the reference database page, with no cache-control", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop.json");
  const expected = example("02-database.json");
  assert.equal(response.status, expected.status);
  assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
  assert.equal(response.headers.get("cache-control"), null);
  // Recorded in the spec's era; compared in 1.0's shape (queries with 1.0's keys and list keys).
  assert.deepEqual(response.json(), inOnePointOhShape(expected.body));
  // Tables, then views, in name order (the keys' order too, not only the lists').
  const order = (body: unknown) => Object.keys((body as { table_columns: object }).table_columns);
  assert.deepEqual(order(response.json()), order(expected.body));
});

Deno.test("the database page lists tables with counts, views, queries and the SQL form", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), null);
  const html = response.text;
  assert.match(html, /<a href="\/shop\/products">products<\/a>/);
  assert.match(html, /9 rows/);
  assert.match(html, /<a href="\/shop\/cheap_products">cheap_products<\/a>/);
  assert.match(html, /href="\/shop\/products_by_category"[^>]*>Products in a category<\/a>/);
  assert.match(html, /add_log_entry<\/a> <span class="badge">write<\/span>/);
  assert.match(html, /<form class="sql-form" action="\/shop" method="get">/);
  assert.match(html, /<textarea id="sql-editor" name="sql"/);
  // Hidden FTS tables stay behind the toggle until asked for.
  assert.doesNotMatch(html, /products_fts_docsize/);
  assert.match(html, /href="\/shop\?_show_hidden=1">5 hidden tables<\/a>/);
  const shown = (await svc.client.get("/shop?_show_hidden=1")).text;
  assert.match(shown, /<a href="\/shop\/products_fts_docsize">products_fts_docsize<\/a>/);
  assert.match(shown, /Hide 5 hidden tables/);
});

Deno.test("a canned query's fragment is added to its link on the database page", async () => {
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.queries.products_by_category.fragment = "chart";
  await using svc = shopService({ metadata });
  const html = (await svc.client.get("/shop")).text;
  assert.match(html, /href="\/shop\/products_by_category#chart"/);
});

Deno.test("canned queries from the canned_queries hook are listed like configured ones", async () => {
  await using svc = shopService();
  svc.pm.register({
    canned_queries({ database, actor }: { database: string; actor: { id: string } | null }) {
      if (database !== "shop") return null;
      // Awaitable answers are allowed; the actor decides what is offered.
      return Promise.resolve({
        cheapest: "select name from products where id = 2",
        ...(actor?.id === "alice" ? { mine: { sql: "select 1", title: "Alice's" } } : {}),
      });
    },
  }, { name: "test-canned" });
  const anonymous = (await svc.client.get("/shop.json")).json() as {
    queries: Record<string, unknown>[];
  };
  const cheapest = anonymous.queries.find((q) => q.name === "cheapest");
  assert.deepEqual(cheapest, {
    database: "shop",
    name: "cheapest",
    sql: "select name from products where id = 2",
    title: null,
    description: null,
    description_html: null,
    hide_sql: false,
    fragment: null,
    parameters: [],
    is_write: false,
    is_private: false,
    is_trusted: true,
    source: "plugin",
    owner_id: null,
    on_success_message: null,
    on_success_message_sql: null,
    on_success_redirect: null,
    on_error_message: null,
    on_error_redirect: null,
    write: false,
    private: false,
  });
  assert.equal(anonymous.queries.some((q) => q.name === "mine"), false);
  const cookie = encodeActorCookie(svc.signer, { id: "alice" });
  const alice = (await svc.client.get("/shop.json", { cookies: { ds_actor: cookie } }))
    .json() as {
      queries: Record<string, unknown>[];
    };
  assert.equal(alice.queries.find((q) => q.name === "mine")?.title, "Alice's");
  const page = await svc.client.get("/shop/cheapest.json");
  assert.deepEqual(page.json(), { ok: true, rows: [{ name: "Wooden spoon" }], truncated: false });
});

Deno.test("without execute-sql the page has no SQL form and no table_columns", async () => {
  const metadata = { ...structuredClone(SHOP_METADATA), allow_sql: false };
  await using svc = shopService({ metadata });
  const data = (await svc.client.get("/shop.json")).json() as Record<string, unknown>;
  assert.equal(data.allow_execute_sql, false);
  assert.equal("table_columns" in data, false);
  const html = (await svc.client.get("/shop")).text;
  assert.doesNotMatch(html, /<textarea id="sql-editor"/);
  const denied = await svc.client.get("/shop.json?sql=select+1");
  assert.equal(denied.status, 403);
});

Deno.test("view-database denied answers 403 on the page and its JSON", async () => {
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.allow = { id: "alice" };
  await using svc = shopService({ metadata });
  assert.equal((await svc.client.get("/shop.json")).status, 403);
  assert.equal((await svc.client.get("/shop")).status, 403);
  const cookie = encodeActorCookie(svc.signer, { id: "alice" });
  const alice = await svc.client.get("/shop.json", { cookies: { ds_actor: cookie } });
  assert.equal(alice.status, 200);
  assert.equal((alice.json() as { private: boolean }).private, true);
});

Deno.test("database_actions hook items appear in the page's action menu", async () => {
  await using svc = shopService();
  svc.pm.register({
    database_actions({ database }: { database: string }) {
      return () => [{ href: `/-/export/${database}`, label: "Export everything" }];
    },
  }, { name: "test-actions" });
  const html = (await svc.client.get("/shop")).text;
  assert.match(html, /href="\/-\/export\/shop"[^>]*>\s*Export everything/);
});

Deno.test("an unknown database is a 404", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/nope.json");
  assert.equal(response.status, 404);
});
