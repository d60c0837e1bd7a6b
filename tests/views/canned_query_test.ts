import assert from "node:assert/strict";
import { example, SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";

/** The examples' metadata with extra canned queries for `shop`. */
function withQueries(queries: Record<string, unknown>) {
  const metadata = structuredClone(SHOP_METADATA);
  Object.assign(metadata.databases.shop.queries, queries);
  return metadata;
}

Deno.test("GET /shop/products_by_category.json?category=Garden matches example 33", async () => {
  await using svc = shopService();
  const expected = example("33-canned-query.json");
  const response = await svc.client.get(expected.request.replace(/^GET /, ""));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
  assert.equal(response.headers.get("cache-control"), expected.headers["cache-control"]);
  assert.deepEqual(response.json(), expected.body);
});

Deno.test("cache-control follows default_cache_ttl and _ttl", async () => {
  await using svc = shopService({ settings: { default_cache_ttl: 60 } });
  const path = "/shop/products_by_category.json?category=Garden";
  assert.equal((await svc.client.get(path)).headers.get("cache-control"), "max-age=60");
  assert.equal((await svc.client.get(`${path}&_ttl=0`)).headers.get("cache-control"), "no-cache");
});

Deno.test("the HTML page shows title, description, the form and the results", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop/products_by_category?category=Garden&_run=1");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "max-age=5");
  const html = response.text;
  assert.match(html, /<h1>Products in a category<\/h1>/);
  assert.match(html, /Pass \?category=Kitchen, Garden or Tools/);
  assert.match(html, /<input type="text" id="qp1" name="category" value="Garden">/);
  assert.match(html, /<pre class="sql-display">select products.id/);
  assert.match(html, /<td class="col-name type-str">Trowel<\/td>/);
  assert.match(html, /href="\/shop\?sql=select\+products.id[^"]*category=Garden">Edit SQL/);
});

Deno.test("a query with parameters runs once every parameter is in the URL", async () => {
  await using svc = shopService({
    metadata: withQueries({
      two: { sql: "select :a || :b as ab", title: "Two" },
      plain: "select 'ran' as p",
    }),
  });
  const bare = (await svc.client.get("/shop/two")).text;
  assert.doesNotMatch(bare, /<table class="rows-and-columns">/);
  assert.doesNotMatch(bare, /0 results/);
  // One field given: pre-filled, still waiting for the other.
  const prefilled = (await svc.client.get("/shop/two?a=x")).text;
  assert.match(prefilled, /name="a" value="x"/);
  assert.doesNotMatch(prefilled, /<table class="rows-and-columns">/);
  // A shared link with every parameter (an empty one counts) shows its results.
  const complete = (await svc.client.get("/shop/two?a=x&b=")).text;
  assert.match(complete, /<td class="col-ab type-str">x<\/td>/);
  assert.match(complete, /<input type="hidden" name="_run" value="1">/);
  // The form's `_run=1` runs it even when a field was left out of the URL.
  const submitted = (await svc.client.get("/shop/two?a=y&_run=1")).text;
  assert.match(submitted, /<td class="col-ab type-str">y<\/td>/);
  // A query without parameters runs straight away.
  const plain = (await svc.client.get("/shop/plain")).text;
  assert.match(plain, /<td class="col-p type-str">ran<\/td>/);
});

Deno.test("hide_sql hides the SQL behind a show link; _hide_sql hides it on demand", async () => {
  await using svc = shopService({
    metadata: withQueries({
      secret: { sql: "select 'hidden sql' as s", hide_sql: true },
    }),
  });
  const hidden = (await svc.client.get("/shop/secret")).text;
  assert.doesNotMatch(hidden, /<pre class="sql-display">/);
  assert.match(hidden, /<a href="\/shop\/secret\?_show_sql=1">Show SQL<\/a>/);
  assert.match(hidden, /<td class="col-s type-str">hidden sql<\/td>/);
  const shown = (await svc.client.get("/shop/secret?_show_sql=1")).text;
  assert.match(shown, /<pre class="sql-display">select &#39;hidden sql&#39; as s<\/pre>/);
  assert.match(shown, /<a href="\/shop\/secret">Hide SQL<\/a>/);
  const onDemand = (await svc.client.get("/shop/products_by_category?_hide_sql=1")).text;
  assert.doesNotMatch(onDemand, /<pre class="sql-display">/);
  // The GET form carries the choice, so running the query does not flip it back.
  assert.match(onDemand, /<input type="hidden" name="_hide_sql" value="1">/);
  assert.match(shown, /<input type="hidden" name="_show_sql" value="1">/);
  assert.doesNotMatch(hidden, /type="hidden" name="_show_sql"/);
});

Deno.test("description_html is rendered as HTML, description escaped", async () => {
  await using svc = shopService({
    metadata: withQueries({
      fancy: { sql: "select 1 as one", description_html: "<em>Very</em> fancy" },
      plain: { sql: "select 1 as one", description: "<em>not html</em>" },
    }),
  });
  assert.match((await svc.client.get("/shop/fancy")).text, /<em>Very<\/em> fancy/);
  assert.match((await svc.client.get("/shop/plain")).text, /&lt;em&gt;not html&lt;\/em&gt;/);
});

Deno.test("an explicit params list decides the form fields, not what the URL binds", async () => {
  await using svc = shopService({
    metadata: withQueries({
      listed: { sql: "select :x as x, :y as y", params: ["y"] },
    }),
  });
  const html = (await svc.client.get("/shop/listed")).text;
  assert.match(html, /name="y"/);
  assert.doesNotMatch(html, /name="x"/);
  // Like a POST body, the query string supplies every parameter of the SQL (SPEC "Named
  // parameters"); the list only decides which get a field. A missing one is still "".
  const data = (await svc.client.get("/shop/listed.json?y=1&x=2")).json();
  assert.deepEqual(data, { ok: true, rows: [{ x: "2", y: "1" }], truncated: false });
  const missing = (await svc.client.get("/shop/listed.json?y=1")).json();
  assert.deepEqual(missing, { ok: true, rows: [{ x: "", y: "1" }], truncated: false });
});

Deno.test("allow on a canned query goes through view-query", async () => {
  await using svc = shopService({
    metadata: withQueries({
      private_q: { sql: "select 1 as one", allow: { id: "alice" } },
    }),
  });
  assert.equal((await svc.client.get("/shop/private_q.json")).status, 403);
  const listed = (await svc.client.get("/shop.json")).json() as { queries: { name: string }[] };
  assert.equal(listed.queries.some((q) => q.name === "private_q"), false);
  const cookies = { ds_actor: encodeActorCookie(svc.signer, { id: "alice" }) };
  const response = await svc.client.get("/shop/private_q.json", { cookies });
  assert.equal(response.status, 200);
  const asAlice = (await svc.client.get("/shop.json", { cookies })).json() as {
    queries: { name: string; private: boolean }[];
  };
  assert.equal(asAlice.queries.find((q) => q.name === "private_q")?.private, true);
});

Deno.test("an SQL error in a canned query is a 400 with the message", async () => {
  await using svc = shopService({ metadata: withQueries({ broken: "select * from nope" }) });
  const response = await svc.client.get("/shop/broken.json");
  assert.equal(response.status, 400);
  assert.deepEqual(response.json(), {
    ok: false,
    rows: [],
    error: "no such table: nope",
    errors: ["no such table: nope"],
    status: 400,
    truncated: false,
  });
  assert.equal(response.headers.get("cache-control"), null);
});

Deno.test("POST to a read-only canned query is refused and never writes", async () => {
  await using svc = shopService({
    metadata: withQueries({ sneaky: "delete from log" }),
  });
  const response = await svc.client.post("/shop/sneaky", { data: {} });
  assert.equal(response.status, 405);
  const get = await svc.client.get("/shop/sneaky.json");
  assert.equal(get.status, 400);
  const count = await svc.get_database("shop").execute("select count(*) from log");
  assert.equal(count.single_value(), 3);
});

Deno.test("an allow block on a hook-supplied canned query is enforced", async () => {
  await using svc = shopService();
  svc.pm.register({
    canned_queries: () => ({
      private_report: { sql: "select 1 as one", allow: { id: "alice" } },
    }),
  }, { name: "test-private-canned" });
  assert.equal((await svc.client.get("/shop/private_report.json")).status, 403);
  const cookie = encodeActorCookie(svc.signer, { id: "alice" });
  const alice = await svc.client.get("/shop/private_report.json", {
    cookies: { ds_actor: cookie },
  });
  assert.equal(alice.status, 200);
  assert.deepEqual(alice.json().rows, [{ one: 1 }]);
});

Deno.test("a definition without sql is a 500 naming the query; the database page still lists it", async () => {
  await using svc = shopService({
    metadata: withQueries({ nosql: { title: "No SQL yet" }, number: 5 }),
  });
  for (const name of ["nosql", "number"]) {
    const response = await svc.client.get(`/shop/${name}.json`);
    assert.equal(response.status, 500);
    assert.equal(
      (response.json() as { error: string }).error,
      `Canned query "${name}" has no "sql" string in its definition`,
    );
  }
  const page = await svc.client.get("/shop");
  assert.equal(page.status, 200);
  assert.match(page.text, />No SQL yet<\/a>/);
});
