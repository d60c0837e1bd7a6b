import assert from "node:assert/strict";
import { costKey, LONG_QUERY_MS, QueryCosts, REMEMBERED_CHARS } from "../../src/db/query_costs.ts";

Deno.test("query costs remember a bounded amount of SQL text, most recent first", () => {
  const costs = new QueryCosts();
  // 2,000 visitor queries of 50 KB each would be 100 MB of text if all were kept.
  for (let i = 0; i < 2000; i++) {
    costs.record(`select ${i} /* ${"x".repeat(50_000)} */`, LONG_QUERY_MS + 1);
  }
  assert.ok(costs.chars <= REMEMBERED_CHARS, `${costs.chars} characters kept`);
  assert.ok(costs.size >= 50, `${costs.size} texts kept`);
  assert.equal(costs.isLong(`select 1999 /* ${"x".repeat(50_000)} */`), true);
  assert.equal(costs.isLong(`select 0 /* ${"x".repeat(50_000)} */`), false);
});

Deno.test("short SQL texts are remembered up to the count limit", () => {
  const costs = new QueryCosts();
  for (let i = 0; i < 5000; i++) costs.record(`select ${i}`, LONG_QUERY_MS + 1);
  assert.equal(costs.size, 2000);
  assert.equal(costs.isLong("select 4999"), true);
  assert.equal(costs.isLong("select 0"), false);
});

Deno.test("a tiny query stays tiny through a run or two slowed by the machine", () => {
  const costs = new QueryCosts();
  const sql = "select * from trees where id = :p0";
  for (let i = 0; i < 10; i++) costs.record(sql, 0.05);
  assert.equal(costs.isTiny(sql), true);
  // Descheduled mid-query on a busy machine: the moving average alone would say 10 ms.
  costs.record(sql, 25);
  assert.equal(costs.isTiny(sql), true);
  costs.record(sql, 0.05);
  costs.record(sql, 25);
  assert.equal(costs.isTiny(sql), true, "two slow runs of the last five");
  // A text that really turned slow is no longer tiny after three slow runs of five.
  costs.record(sql, 25);
  assert.equal(costs.isTiny(sql), false);
});

Deno.test("a text is known short only once it has run, and stays short below the long limit", () => {
  const costs = new QueryCosts();
  assert.equal(costs.isKnownShort("select 1"), false, "never seen");
  costs.record("select 1", 0.1);
  assert.equal(costs.isKnownShort("select 1"), true);
  costs.record("select 2", LONG_QUERY_MS * 3);
  assert.equal(costs.isKnownShort("select 2"), false);
  assert.equal(costs.isLong("select 2"), true);
});

Deno.test("the page sizes of one page share a cost: a final limit (and offset) is not part of the text", () => {
  const costs = new QueryCosts();
  const scan = (size: number) =>
    `select id, species from trees where "species" = :p0 order by height, id limit ${size}`;
  costs.record(scan(51), LONG_QUERY_MS * 3);
  assert.equal(costs.isLong(scan(88)), true, "a size never asked is known long");
  assert.equal(costs.isKnownShort(scan(88)), false);
  const keyset = (size: number, offset = "") =>
    `select id from trees where ((id > :p0)) order by id limit ${size}${offset}`;
  for (let i = 0; i < 3; i++) costs.record(keyset(11 + i), 0.5);
  assert.equal(costs.isKnownShort(keyset(101)), true, "a size never asked is known short");
  assert.equal(costs.isTiny(keyset(42, " offset 300")), true);
  // Only the statement's end: a limit inside a subquery is part of what it does.
  const inner = "select * from (select id from trees limit 5) where id > 1";
  costs.record(inner, LONG_QUERY_MS * 3);
  assert.equal(costs.isLong("select * from (select id from trees limit 6) where id > 1"), false);
  assert.equal(costKey("select 1 limit 10"), "select 1 limit ?");
  assert.equal(costKey("select 'limit 10'"), "select 'limit 10'");
  const long = `select ${"x, ".repeat(50_000)}y from t limit 7`;
  assert.equal(costKey(long), long.replace(/limit 7$/, "limit ?"));
});
