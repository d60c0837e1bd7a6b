import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Database } from "../../src/db/database.ts";
import { QueryInterrupted } from "../../src/db/errors.ts";
import { testHost } from "./helpers.ts";

const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";
const CRASH_PLUGIN = new URL("./crash_plugin.ts", import.meta.url).href;
const quiet = { log_sql_errors: false };

for (const [name, message] of [["self_close", /self\.close/], ["deno_exit", /Deno\.exit\(3\)/]]) {
  Deno.test(`a worker that exits by ${name} fails its query and is replaced`, async () => {
    const host = testHost({ settings: { num_sql_threads: 1 }, pluginModules: [CRASH_PLUGIN] });
    const doomed = new Database(host, { memory_name: `${name}_pool`, name: name as string });
    const fine = new Database(host, { memory_name: `fine_${name}` });
    try {
      // Before the fix the worker vanished without an event and this query hung for ever.
      await assert.rejects(doomed.execute("select 1", null, quiet), message as RegExp);
      assert.equal((await fine.execute("select 2")).single_value(), 2);
      assert.deepEqual(host.readPool().threads(), [{ name: "vitrine-read-1", busy: 0 }]);
    } finally {
      doomed.close();
      fine.close();
      host.close();
    }
  });
}

Deno.test("a worker killed by an uncaught error is dropped and replaced", async () => {
  const host = testHost({ settings: { num_sql_threads: 1 }, pluginModules: [CRASH_PLUGIN] });
  const doomed = new Database(host, { memory_name: "throw_later_pool", name: "throw_later" });
  const fine = new Database(host, { memory_name: "fine_after_throw" });
  try {
    // The error fires on the worker's next turn, which may come before or after this answer:
    // either way the query settles (never hangs) and the pool forgets the dead worker.
    await doomed.execute("select 1", null, quiet).catch(() => {});
    const deadline = performance.now() + 5000;
    while (host.readPool().threads().some((t) => t.name === "vitrine-read-0")) {
      assert.ok(performance.now() < deadline, "the crashed worker is still in the pool");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal((await fine.execute("select 3")).single_value(), 3);
    assert.deepEqual(host.readPool().threads().map((t) => t.name), ["vitrine-read-1"]);
  } finally {
    doomed.close();
    fine.close();
    host.close();
  }
});

Deno.test("closing the pool rejects running and queued queries at once", async () => {
  const host = testHost({ settings: { num_sql_threads: 1, sql_time_limit_ms: 60_000 } });
  const db = new Database(host, { memory_name: "pool_close" });
  try {
    const running = db.execute(ENDLESS, null, quiet);
    const queued = db.execute("select 1", null, quiet);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const start = performance.now();
    host.readPool().close();
    await assert.rejects(running, /The read pool was closed/);
    await assert.rejects(queued, /The read pool was closed/);
    // Far less than the query's own 60 s limit: closing did not wait for it.
    assert.ok(performance.now() - start < 10_000);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("1,000 concurrent queries all get their own answer", async () => {
  const host = testHost({ settings: { num_sql_threads: 2 } });
  const db = new Database(host, { memory_name: "thousand" });
  try {
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => db.execute("select ?, ? * 2", [i, i])),
    );
    results.forEach((result, i) => assert.deepEqual([...result.rows[0]], [i, i * 2]));
  } finally {
    db.close();
    host.close();
  }
});

for (const threads of [1, 0]) {
  Deno.test(`an aborted signal gives QueryInterrupted, queued or not (threads=${threads})`, async () => {
    const host = testHost({ settings: { num_sql_threads: threads, sql_time_limit_ms: 60_000 } });
    const db = new Database(host, { memory_name: `abort_queue_${threads}` });
    try {
      await assert.rejects(
        db.execute("select 1", null, { ...quiet, signal: AbortSignal.abort() }),
        QueryInterrupted,
      );
      if (threads === 0) return;
      const busy = new AbortController();
      const running = db.execute(ENDLESS, null, { ...quiet, signal: busy.signal });
      const waiting = new AbortController();
      const queued = db.execute("select 1", null, { ...quiet, signal: waiting.signal });
      waiting.abort();
      await assert.rejects(queued, QueryInterrupted);
      busy.abort();
      await assert.rejects(running, QueryInterrupted);
    } finally {
      db.close();
      host.close();
    }
  });
}

Deno.test("a 50 MB BLOB round-trips through a worker (max_returned_bytes 0)", async () => {
  const host = testHost({ settings: { num_sql_threads: 1, max_returned_bytes: 0 } });
  const db = new Database(host, { memory_name: "big_blob" });
  try {
    const big = new Uint8Array(50 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 997) big[i] = i % 251;
    const row = (await db.execute("select ? as b, length(?) as n", [big, big])).rows[0];
    assert.equal(row["n"], big.length);
    const back = row["b"] as Uint8Array;
    assert.equal(back.length, big.length);
    assert.ok(Buffer.from(back.buffer, back.byteOffset, back.length).equals(big));
  } finally {
    db.close();
    host.close();
  }
});

const ODD_VALUES = `select 9007199254740993 as big, -9223372036854775808 as min, x'00ff' as blob,
  -0.0 as neg_zero, 9e999 as inf, -9e999 as ninf, 'a' || char(0) || 'b' as nul, '🎉' as emoji,
  '' as empty, null as none, 1.5 as real, 42 as int, 1 as dup, 2 as dup`;

Deno.test("workers and the main thread (num_sql_threads=0) give identical results", async () => {
  const results = [];
  for (const threads of [2, 0]) {
    const host = testHost({ settings: { num_sql_threads: threads } });
    const db = new Database(host, { memory_name: `same_${threads}` });
    try {
      const result = await db.execute(ODD_VALUES);
      results.push({ columns: result.columns, rows: result.rows.map((row) => [...row]) });
    } finally {
      db.close();
      host.close();
    }
  }
  assert.deepEqual(results[0], results[1]);
  assert.ok(Object.is(results[0].rows[0][3], -0), "-0 keeps its sign across the worker boundary");
});
