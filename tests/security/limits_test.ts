/**
 * Resource limits a client cannot lift or trip into a crash: `_timelimit` only lowers the SQL time
 * limit, huge query strings and deeply nested JSON bodies get an answer (never a 500), and POST
 * bodies over `max_post_body_bytes` are refused.
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
});

Deno.test("a huge query string gets a clean answer, not a 500", async () => {
  await using svc = shopService();
  // SQLite refuses 20,000 filters ("Expression tree is too large") and the log quotes all of it.
  const logError = console.error;
  console.error = () => {};
  try {
    const many = await svc.client.get(`/shop/products.json?${"name=x&".repeat(20000)}`);
    assert.ok(many.status < 500, `${many.status}`);
    assert.equal(many.json().ok, false);
    const long = await svc.client.get(`/shop/products.json?name=${"x".repeat(200_000)}`);
    assert.equal(long.status, 200);
    assert.deepEqual(long.json().rows, []);
    assert.equal((await svc.client.get("/shop/products.json")).status, 200);
  } finally {
    console.error = logError;
  }
});

Deno.test("a deeply nested JSON body does not crash a writable query", async () => {
  await using svc = shopService();
  const depth = 100_000;
  const body = `{"message": ${"[".repeat(depth)}${"]".repeat(depth)}}`;
  const response = await svc.client.post("/shop/add_log_entry", {
    headers: { "content-type": "application/json", accept: "application/json" },
    body,
  });
  assert.ok(response.status < 500, `${response.status}: ${response.text.slice(0, 200)}`);
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
