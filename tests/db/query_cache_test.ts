import assert from "node:assert/strict";
import { QueryCache } from "../../src/db/query_cache.ts";

const answer = (n: number) => ({ columns: ["n"], rows: [[n]], truncated: false });

Deno.test("identical queries asked together run once; failures are not kept", async () => {
  const cache = new QueryCache(1024 * 1024);
  let runs = 0;
  const run = async () => {
    runs++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return answer(runs);
  };
  const key = QueryCache.key("hash", "select n", { p: 1 });
  const all = await Promise.all(Array.from({ length: 10 }, () => cache.get(key, run)));
  assert.equal(runs, 1);
  assert.ok(all.every((a) => a.rows[0][0] === 1));
  // Each caller has its own copy of the rows.
  all[0].rows[0][0] = 99;
  assert.equal((await cache.get(key, run)).rows[0][0], 1);
  const failing = QueryCache.key("hash", "select boom", null);
  await assert.rejects(cache.get(failing, () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal((await cache.get(failing, () => Promise.resolve(answer(5)))).rows[0][0], 5);
});

Deno.test("keys tell apart files, SQL, parameter values and their types", () => {
  const keys = [
    QueryCache.key("a", "select ?", [1]),
    QueryCache.key("b", "select ?", [1]),
    QueryCache.key("a", "select ? ", [1]),
    QueryCache.key("a", "select ?", ["1"]),
    QueryCache.key("a", "select ?", [1n]),
    QueryCache.key("a", "select ?", [-0]),
    QueryCache.key("a", "select ?", [new Uint8Array([1])]),
    QueryCache.key("a", "select ?", [null]),
    QueryCache.key("a", "select ?", [1], "100,0"),
  ];
  assert.equal(new Set(keys).size, keys.length);
});

Deno.test("the cache stays within its byte budget, least recently used out first", async () => {
  const cache = new QueryCache(40_000);
  const big = (tag: string) => ({
    columns: ["t"],
    rows: [["x".repeat(3000) + tag]],
    truncated: false,
  });
  for (let i = 0; i < 20; i++) await cache.get(`k${i}`, () => Promise.resolve(big(String(i))));
  const { bytes, entries } = cache.stats();
  assert.ok(bytes <= 40_000, `${bytes} bytes`);
  assert.ok(entries < 20 && entries > 0);
  let ran = false;
  await cache.get("k19", () => (ran = true, Promise.resolve(big("again"))));
  assert.equal(ran, false, "the most recent answer is still there");
  await cache.get("k0", () => (ran = true, Promise.resolve(big("again"))));
  assert.equal(ran, true, "the oldest was evicted");
});

Deno.test("getShared() gives the kept answer itself, with the page bytes kept alongside", async () => {
  const cache = new QueryCache(1024 * 1024);
  const page = { bytes: new TextEncoder().encode('[{"n": 1}]'), edge: null };
  const key = QueryCache.key("hash", "select n", null, "json");
  const first = await cache.getShared(key, () => Promise.resolve({ ...answer(1), page }));
  let ran = false;
  const again = await cache.getShared(key, () => (ran = true, Promise.resolve(answer(2))));
  assert.equal(ran, false);
  assert.equal(again, first);
  assert.equal(again.page, page);
  // get() still hands out a copy of the rows, and the page with it.
  const copy = await cache.get(key, () => Promise.resolve(answer(3)));
  assert.notEqual(copy.rows, first.rows);
  assert.deepEqual(copy.rows, [[1]]);
  assert.equal(copy.page, page);
});

Deno.test("a caller that joined a run that failed runs the query itself", async () => {
  const cache = new QueryCache(1024 * 1024);
  const key = QueryCache.key("hash", "select slow", null);
  // The first caller's query is stopped at its own limit while the second waits for it.
  const first = cache.get(key, async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw Object.assign(new Error("interrupted"), { name: "QueryInterrupted" });
  });
  let secondRuns = 0;
  const second = cache.get(key, () => (secondRuns++, Promise.resolve(answer(7))));
  await assert.rejects(first, /interrupted/);
  assert.equal((await second).rows[0][0], 7);
  assert.equal(secondRuns, 1);
  // A failure the second caller meets on its own run is its own to see.
  const failing = QueryCache.key("hash", "select boom", null);
  const a = cache.get(failing, () => Promise.reject(new Error("boom")));
  const b = cache.get(failing, () => Promise.reject(new Error("boom again")));
  await assert.rejects(a, /boom/);
  await assert.rejects(b, /boom again/);
});
