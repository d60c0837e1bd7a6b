import assert from "node:assert/strict";
import { example, inOnePointOhShape, shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";

/** Path and query of a recorded example's request line. */
function pathOf(name: string): string {
  return example(name).request.replace(/^GET /, "");
}

/** Body keys of the example must all be present with the same values (`errors` is extra). */
function assertIncludes(actual: unknown, expected: unknown): void {
  const body = actual as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected as Record<string, unknown>)) {
    assert.deepEqual(body[key], value, `key ${key}`);
  }
}

for (const name of ["32-query-named-param.json", "40-error-400-sql.json"]) {
  Deno.test(`custom SQL matches example ${name} exactly`, async () => {
    await using svc = shopService();
    const expected = example(name);
    const response = await svc.client.get(pathOf(name));
    assert.equal(response.status, expected.status);
    assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
    assert.equal(response.headers.get("cache-control"), null);
    assert.deepEqual(response.json(), inOnePointOhShape(expected.body));
  });
}

for (const name of ["41-error-400-not-select.json", "42-error-400-pragma.json"]) {
  Deno.test(`invalid SQL matches example ${name}`, async () => {
    await using svc = shopService();
    const expected = example(name);
    const response = await svc.client.get(pathOf(name));
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
    assert.equal(response.headers.get("cache-control"), null);
    assertIncludes(response.json(), expected.body);
  });
}

Deno.test("/<db>.json?sql= answers directly with the query's rows", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop.json?sql=select+id+from+categories+order+by+id");
  assert.equal(response.status, 200);
  assert.deepEqual(response.json(), {
    ok: true,
    rows: [{ id: 1 }, { id: 2 }, { id: 3 }],
    truncated: false,
  });
});

Deno.test("named parameters become form fields and values are always strings", async () => {
  await using svc = shopService();
  const sql = encodeURIComponent("select :a as a, typeof(:a) as t, :b as b");
  const data = (await svc.client.get(`/shop.json?sql=${sql}&a=5`)).json();
  // Missing parameters bind as "", supplied ones as text (even digits).
  assert.deepEqual(data, { ok: true, rows: [{ a: "5", t: "text", b: "" }], truncated: false });
  const html = (await svc.client.get(`/shop?sql=${sql}&a=5`)).text;
  assert.match(html, /<input type="text" id="qp1" name="a" value="5">/);
  assert.match(html, /<input type="text" id="qp2" name="b" value="">/);
  assert.match(html, /<textarea id="sql-editor" name="sql"[^>]*>select :a as a/);
  // The page waits for every parameter before running: no "0 results" for a half-filled form.
  assert.doesNotMatch(html, /rows-and-columns|0 results/);
  const both = (await svc.client.get(`/shop?sql=${sql}&a=5&b=`)).text;
  assert.match(both, /<td class="col-a type-str">5<\/td>/);
});

Deno.test("a named parameter can carry the text PRAGMA safely", async () => {
  await using svc = shopService();
  const data = (await svc.client.get("/shop.json?sql=select+:x+as+x&x=pragma+foo")).json();
  assert.deepEqual(data, { ok: true, rows: [{ x: "pragma foo" }], truncated: false });
});

Deno.test("magic parameters are never filled in typed SQL and get no form field", async () => {
  await using svc = shopService();
  const cookie = encodeActorCookie(svc.signer, { id: "alice" });
  const sql = encodeURIComponent("select :_actor_id as who, :_now_epoch as t");
  const response = await svc.client.get(`/shop.json?sql=${sql}&_actor_id=mallory`, {
    cookies: { ds_actor: cookie },
  });
  assert.deepEqual(response.json(), {
    ok: true,
    rows: [{ who: null, t: null }],
    truncated: false,
  });
  const html = (await svc.client.get(`/shop?sql=${sql}`)).text;
  assert.doesNotMatch(html, /name="_actor_id"/);
});

Deno.test("an SQL error from SQLite is shown on the HTML page with status 400", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop?sql=select+*+from+nope");
  assert.equal(response.status, 400);
  assert.match(response.text, /<strong>Error:<\/strong> no such table: nope/);
  assert.match(response.text, /<textarea id="sql-editor" name="sql"[^>]*>select \* from nope/);
});

Deno.test("invalid SQL in HTML keeps the editor with the SQL and the message", async () => {
  await using svc = shopService();
  for (const sql of ["selec 1", "update products set price = 0"]) {
    const response = await svc.client.get(`/shop?sql=${encodeURIComponent(sql)}`);
    assert.equal(response.status, 400);
    assert.match(response.text, /<strong>Error:<\/strong> Statement must be a SELECT/);
    const editor = new RegExp(`<textarea id="sql-editor" name="sql"[^>]*>${sql}</textarea>`);
    assert.match(response.text, editor);
  }
});

Deno.test("parameter names may hold digits, underscores and letters of any script", async () => {
  await using svc = shopService();
  const sql = encodeURIComponent("select :id_2 as a, :café as b, :名前 as c");
  const query = `id_2=1&${encodeURIComponent("café")}=2&${encodeURIComponent("名前")}=3`;
  const data = (await svc.client.get(`/shop.json?sql=${sql}&${query}`)).json();
  assert.deepEqual(data, { ok: true, rows: [{ a: "1", b: "2", c: "3" }], truncated: false });
  const html = (await svc.client.get(`/shop?sql=${sql}`)).text;
  assert.match(html, /<label for="qp2">café<\/label>/);
  assert.match(html, /name="名前"/);
});

Deno.test("a PRAGMA statement is rejected with the list of allowed pragma functions", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop?sql=select+*+from+pragma_cache_size()");
  assert.equal(response.status, 400);
  assert.match(response.text, /Allowed pragma functions are pragma_database_list\(\)/);
  const allowed = await svc.client.get(
    "/shop.json?sql=select+name+from+pragma_table_info('categories')",
  );
  assert.deepEqual(allowed.json(), {
    ok: true,
    rows: [{ name: "id" }, { name: "name" }],
    truncated: false,
  });
});

async function logCount(svc: Service): Promise<number> {
  const results = await svc.get_database("shop").execute("select count(*) from log");
  return Number(results.single_value());
}

Deno.test("typed SQL can never write", async (t) => {
  await using svc = shopService();
  const attempts: [string, number][] = [
    ["insert into log (message, level) values ('x', 'info')", 400],
    ["attach database ':memory:' as other", 400],
    ["pragma journal_mode = delete", 400],
    ["vacuum into '/tmp/vitrine-should-not-exist.db'", 400],
    ["select load_extension('/tmp/nope')", 400],
    // Passes validation (it starts with WITH) but the read-only connection refuses it.
    ["with x as (select 1) insert into log (message, level) select 'x', 'info' from x", 400],
  ];
  const before = await logCount(svc);
  for (const [sql, status] of attempts) {
    await t.step(sql, async () => {
      const response = await svc.client.get(`/shop.json?sql=${encodeURIComponent(sql)}`);
      assert.equal(response.status, status);
      assert.equal((response.json() as { ok: boolean }).ok, false);
    });
  }
  // Only the first statement of a batch is ever prepared, so the DELETE never runs.
  await svc.client.get(`/shop.json?sql=${encodeURIComponent("select 1; delete from log")}`);
  assert.equal(await logCount(svc), before);
  assert.equal(await Deno.stat("/tmp/vitrine-should-not-exist.db").catch(() => null), null);
});

Deno.test("execute-sql denied is a 403 for custom SQL", async () => {
  await using svc = shopService({ settings: { default_allow_sql: false } });
  assert.equal((await svc.client.get("/shop/-/query.json?sql=select+1")).status, 403);
  assert.equal((await svc.client.get("/shop?sql=select+1")).status, 403);
});

Deno.test("/-/query without sql is a 400 for JSON and an empty editor in HTML", async () => {
  await using svc = shopService();
  assert.equal((await svc.client.get("/shop/-/query.json")).status, 400);
  const html = await svc.client.get("/shop/-/query");
  assert.equal(html.status, 200);
  assert.match(html.text, /<textarea id="sql-editor" name="sql"[^>]*><\/textarea>/);
});

const SLOW_SQL = "with recursive n(i) as (select 1 union all select i + 1 from n) " +
  "select count(*) from n";

Deno.test("a query over the time limit is a 400 'SQL Interrupted'; HTML shows the SQL", async () => {
  await using svc = shopService({ settings: { sql_time_limit_ms: 20 } });
  const json = await svc.client.get(`/shop/-/query.json?sql=${encodeURIComponent(SLOW_SQL)}`);
  assert.equal(json.status, 400);
  const body = json.json() as Record<string, unknown>;
  assert.equal(body.title, "SQL Interrupted");
  assert.match(String(body.error), /sql_time_limit_ms/);
  const html = await svc.client.get(`/shop?sql=${encodeURIComponent(SLOW_SQL)}`);
  assert.equal(html.status, 400);
  assert.match(html.text, /SQL query took too long/);
  assert.match(html.text, /<textarea id="sql-editor" name="sql"[^>]*>with recursive n/);
});

Deno.test("custom SQL results link to their JSON", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop?sql=select+1+as+one")).text;
  assert.match(html, /href="\/shop.json\?sql=select\+1\+as\+one"/);
});

Deno.test("query results come as CSV and in other JSON shapes too", async () => {
  await using svc = shopService();
  const sql = "select+id,+name+from+categories+order+by+id";
  const csv = await svc.client.get(`/shop/-/query.csv?sql=${sql}`);
  assert.equal(csv.status, 200);
  assert.equal(csv.text.split("\r\n")[0], "id,name");
  assert.equal(csv.text.split("\r\n").length >= 4, true);
  const array = await svc.client.get(`/shop.json?sql=${sql}&_shape=array`);
  assert.deepEqual((array.json() as unknown[]).length, 3);
  const canned = await svc.client.get("/shop/products_by_category.csv?category=Garden");
  assert.equal(canned.text.split("\r\n")[0], "id,name,price");
});

Deno.test("the query page's Export menu lists each format once", async () => {
  await using svc = shopService();
  for (
    const path of [
      "/shop/-/query?sql=select+id+from+categories",
      "/shop/products_by_category?category=Garden",
    ]
  ) {
    const html = (await svc.client.get(path)).text;
    const menu = html.slice(html.indexOf('<details class="export-menu">'));
    const thisPage = menu.slice(0, menu.indexOf("</ul>"));
    const formats = [...thisPage.matchAll(/data-format="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(formats, ["csv", "tsv", "ndjson", "json"], path);
  }
});
