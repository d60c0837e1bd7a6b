/**
 * Memory per request is bounded in a real server process, run as shipped (with Vitrine's V8
 * flags): six requests for a 20 MB value at once are refused with a 400 before SQLite allocates
 * it, and the server's RSS stays under 250 MB; a query needing more memory than
 * `sqlite_heap_limit_mb` is a 400 naming the setting, and the server goes on. (The fuzz test
 * bounds RSS over 5,000 varied requests; bench/fuzz.ts and bench/memory.ts print the figures.)
 */
import assert from "node:assert/strict";
import { startFuzzTarget } from "./fuzz_target.ts";
import { rssMiB } from "./server_process.ts";

const RSS_BOUND_MIB = 250;

Deno.test("six 20 MB values at once: 400s, and the server stays under 250 MB", async () => {
  const target = await startFuzzTarget();
  const pid = target.server.pid;
  let peak = rssMiB(pid);
  const sampler = setInterval(() => peak = Math.max(peak, rssMiB(pid)), 20);
  try {
    const url = `${target.server.url}shop.json?sql=` +
      encodeURIComponent("select zeroblob(20000000) as b");
    const answers = await Promise.all(Array.from({ length: 6 }, async () => {
      const response = await fetch(url);
      return { status: response.status, body: await response.json() };
    }));
    for (const { status, body } of answers) {
      assert.equal(status, 400);
      assert.match(body.error, /max_returned_bytes/);
    }
    const after = await fetch(`${target.server.url}shop/products.json?_shape=array`);
    assert.equal((await after.json()).length, 9);
    peak = Math.max(peak, rssMiB(pid));
    assert.ok(peak < RSS_BOUND_MIB, `peak RSS ${peak} MiB`);
  } finally {
    clearInterval(sampler);
    await target.close();
  }
});

Deno.test("a query needing more than sqlite_heap_limit_mb is a 400 naming it; the server goes on", async () => {
  const target = await startFuzzTarget([
    "-s",
    "sqlite_heap_limit_mb",
    "16",
    "-s",
    "max_returned_bytes",
    "0",
  ]);
  try {
    const query = (sql: string) =>
      fetch(`${target.server.url}shop.json?_shape=array&sql=${encodeURIComponent(sql)}`);
    const big = await query("select length(randomblob(50000000)) as n");
    assert.equal(big.status, 400);
    assert.match((await big.json()).error, /needs more memory .*sqlite_heap_limit_mb setting/);
    const small = await query("select length(randomblob(1000000)) as n");
    assert.deepEqual(await small.json(), [{ n: 1000000 }]);
  } finally {
    await target.close();
  }
});
