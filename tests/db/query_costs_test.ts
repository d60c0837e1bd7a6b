import assert from "node:assert/strict";
import { LONG_QUERY_MS, QueryCosts, REMEMBERED_CHARS } from "../../src/db/query_costs.ts";

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
