/**
 * Resource limits a client cannot lift or trip into a crash: `_timelimit` only lowers the SQL time
 * limit, URLs over `max_url_bytes` are a 414 (and without the cap huge queries still get an
 * answer, never a 500), JSON nested deeper than `max_json_depth` is a 400, and POST bodies over
 * `max_post_body_bytes` are refused with a 413.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

// Counts to a billion: far longer than any time limit used here, so it is always interrupted.
const SLOW_SQL = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 1e9) " +
  "select count(*) from c";

Deno.test("_timelimit cannot raise sql_time_limit_ms, on custom SQL and on table pages", async () => {
  await using svc = shopService({ settings: { sql_time_limit_ms: 20 } });
  const sql = `/shop.json?sql=${encodeURIComponent(SLOW_SQL)}&_timelimit=100000000`;
  const query = await svc.client.get(sql);
  assert.equal(query.status, 400);
  assert.equal(query.json().title, "SQL Interrupted");
  const where = encodeURIComponent(`id in (${SLOW_SQL})`);
  const table = await svc.client.get(
    `/shop/products.json?_where=${where}&_timelimit=100000000`,
  );
  assert.equal(table.status, 400, table.text);
  assert.equal(table.json().title, "SQL Interrupted");
  // A person is told what ran out, not that the request "could not be understood".
  const page = await svc.client.get(`/shop/products?_where=${where}`);
  assert.equal(page.status, 400);
  assert.match(page.text, /<h1>SQL Interrupted<\/h1>/);
  assert.match(page.text, /SQL query took too long/);
  assert.match(page.text, /The query ran out of time before it finished/);
  assert.doesNotMatch(page.text, /could not be understood/);
});

Deno.test("a URL over max_url_bytes is a 414; without the cap huge queries still get answers", async () => {
  await using svc = shopService();
  const long = await svc.client.get(`/shop/products.json?name=${"x".repeat(200_000)}`);
  assert.equal(long.status, 414);
  assert.equal(long.json().ok, false);
  assert.match(long.json().error, /max_url_bytes/);
  const page = await svc.client.get(`/shop/products?name=${"x".repeat(40_000)}`);
  assert.equal(page.status, 414);
  assert.match(page.text, /^414 The URL is longer than this server accepts \(32768 bytes/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");

  await using open = shopService({ settings: { max_url_bytes: 0 } });
  // SQLite refuses 20,000 filters ("Expression tree is too large") and the log quotes all of it.
  const logError = console.error;
  console.error = () => {};
  try {
    const many = await open.client.get(`/shop/products.json?${"name=x&".repeat(20000)}`);
    assert.equal(many.status, 400);
    assert.equal(many.json().ok, false);
    const value = await open.client.get(`/shop/products.json?name=${"x".repeat(200_000)}`);
    assert.equal(value.status, 200);
    assert.deepEqual(value.json().rows, []);
  } finally {
    console.error = logError;
  }
});

Deno.test("request headers over max_header_bytes are a 431", async () => {
  await using svc = shopService({ settings: { max_header_bytes: 4096 } });
  const big = await svc.client.get("/shop.json", { headers: { cookie: `a=${"x".repeat(5000)}` } });
  assert.equal(big.status, 431);
  assert.match(big.json().error, /max_header_bytes/);
  const fine = await svc.client.get("/shop.json", { headers: { cookie: `a=${"x".repeat(3000)}` } });
  assert.equal(fine.status, 200);
});

Deno.test("JSON nested deeper than max_json_depth is a 400 naming the setting", async () => {
  await using svc = shopService();
  const post = (body: string) =>
    svc.client.post("/shop/add_log_entry", {
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
    });
  const depth = 100_000;
  const deep = await post(`{"message": ${"[".repeat(depth)}${"]".repeat(depth)}}`);
  assert.equal(deep.status, 400);
  assert.match(deep.json().error, /nested deeper than 64 levels \(the max_json_depth setting\)/);
  const fine = await post(`{"message": ${"[".repeat(60)}1${"]".repeat(60)}}`);
  assert.equal(fine.status, 200, fine.text);
  // Brackets inside strings do not count.
  const quoted = await post(JSON.stringify({ message: "[".repeat(1000) }));
  assert.equal(quoted.status, 200, quoted.text);
  assert.equal((await svc.client.get("/shop.json")).status, 200);
});

Deno.test({
  name: "a POST body over max_post_body_bytes is refused with 413",
  fn: async () => {
    await using svc = shopService({ settings: { max_post_body_bytes: 1000 } });
    const response = await svc.client.post("/shop/add_log_entry", {
      data: { message: "x".repeat(5000) },
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 413);
    const small = await svc.client.post("/shop/add_log_entry", {
      data: { message: "fits" },
      headers: { accept: "application/json" },
    });
    assert.equal(small.status, 200);
  },
});
