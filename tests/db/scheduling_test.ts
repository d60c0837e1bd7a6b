/**
 * The read pool's scheduling (pool.ts, pool_queue.ts): time limits counted from the request's arrival, its
 * queries' waits for a worker excepted (up to a bound); short queries are not stuck behind long
 * ones; tiny queries on the main thread give the same answers.
 */
import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { QueryInterrupted } from "../../src/db/errors.ts";
import { withArrival } from "../../src/db/request_clock.ts";
import { wallClock } from "../../src/db/read_query.ts";
import { testHost } from "./helpers.ts";

const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";
const quiet = { log_sql_errors: false };

/** Settles to "fulfilled" / "rejected", so the order in which promises settle can be checked. */
function settled(promise: Promise<unknown>): { state: string; promise: Promise<unknown> } {
  const box = { state: "pending", promise };
  box.promise = promise.then(
    (value) => (box.state = "fulfilled", value),
    (error) => (box.state = "rejected", error),
  );
  return box;
}

Deno.test("a query waiting in the queue past its bound is stopped, unrun", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 1000 },
  });
  const db = new Database(host, { memory_name: "queued_deadline" });
  try {
    await db.execute("select 1"); // the one worker is up
    const busy = new AbortController();
    // Outside any request: limited only while it runs (its own 1 s), so it holds the worker.
    const blocker = settled(db.execute(ENDLESS, null, { ...quiet, signal: busy.signal }));
    // A request that arrived 990 ms ago, whose query may take 50 ms: it may wait for a worker
    // QUEUE_WAIT_FACTOR times that beyond its deadline, and no more.
    const waiting = settled(
      withArrival(
        wallClock() - 990,
        () => db.execute("select 42", null, { ...quiet, custom_time_limit: 50 }),
      ),
    );
    const error = await waiting.promise;
    assert.ok(error instanceof QueryInterrupted, String(error));
    // It gave up while the runaway still held the only worker: it did not wait its turn.
    assert.equal(blocker.state, "pending");
    assert.equal(host.readPool().queued, 0);
    busy.abort();
    assert.ok(await blocker.promise instanceof QueryInterrupted);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a query's wait for a worker is not charged to its time limit", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 400 },
  });
  const db = new Database(host, { memory_name: "queued_not_charged" });
  try {
    await db.execute("select 1");
    // Outside any request, this runaway holds the only worker for its own 400 ms.
    const blocker = settled(db.execute(ENDLESS, null, quiet));
    // A request arriving now waits those 400 ms (its whole limit) in the queue, then runs.
    const waiting = withArrival(wallClock(), () => db.execute("select 42", null, quiet));
    assert.equal((await waiting).single_value(), 42);
    assert.ok(await blocker.promise instanceof QueryInterrupted);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a request's later queries are not charged its earlier queries' waits for a worker", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 400 },
  });
  const db = new Database(host, { memory_name: "request_waits" });
  try {
    await db.execute("select 1");
    // Outside any request, this runaway holds the only worker for its own 400 ms.
    const blocker = settled(db.execute(ENDLESS, null, quiet));
    // The request's first query waits those 400 ms; its second starts after the request's
    // limit, counted from its arrival, is over.
    const answers = await withArrival(wallClock(), async () => [
      (await db.execute("select 'first'", null, quiet)).single_value(),
      (await db.execute("select 'second'", null, quiet)).single_value(),
    ]);
    assert.deepEqual(answers, ["first", "second"]);
    assert.ok(await blocker.promise instanceof QueryInterrupted);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("queries waiting for workers to boot are not charged the boot", async () => {
  // Each worker takes 1.5 s to load its plugins; every query has 500 ms from its arrival.
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 1, sql_time_limit_ms: 500 },
    pluginModules: [new URL("./slow_boot_plugin.ts", import.meta.url).href],
  });
  const db = new Database(host, { memory_name: "slow_boot" });
  try {
    // The first goes to the booting worker; the others wait in the queue for it.
    const answering = Promise.all(
      [1, 2, 3, 4].map((n) => withArrival(wallClock(), () => db.execute(`select ${n}`))),
    );
    // A booting worker is not a stuck one: halfway through its boot, no spare was started to boot
    // beside it. (Checked during the boot: once it answers, a loaded machine may make a 20 ms
    // query look long, and a spare is then right.)
    await new Promise((resolve) => setTimeout(resolve, 750));
    assert.equal(host.readPool().threads().length, 1);
    const answers = await answering;
    assert.deepEqual(answers.map((results) => results.first()?.[0]), [1, 2, 3, 4]);
    // Time past the boot still counts: a query that arrived 600 ms ago gives up unrun.
    await assert.rejects(
      withArrival(wallClock() - 600, () => db.execute("select 5", null, quiet)),
      QueryInterrupted,
    );
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a query started late in its request gets only the time the request has left", async () => {
  const host = testHost({ settings: { num_sql_threads: 1, sql_time_limit_ms: 60_000 } });
  const db = new Database(host, { memory_name: "late_start" });
  try {
    // 60 s per query, but the request arrived 59.8 s ago: this runaway has 200 ms, not 60 s.
    const late = withArrival(wallClock() - 59_800, () => db.execute(ENDLESS, null, quiet));
    const own = settled(db.execute(ENDLESS, null, { ...quiet, custom_time_limit: 30_000 }));
    await assert.rejects(late, QueryInterrupted);
    assert.equal(own.state, "pending", "the query outside the request still runs");
    host.readPool().close();
    await own.promise;
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("short queries get a spare worker while every worker runs a long one", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 1, sql_time_limit_ms: 60_000 },
  });
  const db = new Database(host, { memory_name: "spare_worker" });
  try {
    await db.execute("select 7"); // known to be short from now on
    const busy = new AbortController();
    const runaway = settled(db.execute(ENDLESS, null, { ...quiet, signal: busy.signal }));
    // Answered while the runaway still runs on the base worker.
    assert.equal((await db.execute("select 7")).single_value(), 7);
    assert.equal(runaway.state, "pending");
    assert.equal(host.readPool().threads().length, 2);
    busy.abort();
    await runaway.promise;
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a query running a few tens of milliseconds does not start a spare worker", async () => {
  // Sixteen 12 ms queries at once on a fresh server each ran over 20 ms on two busy cores; counted
  // as stuck then, they started spares, and building each held the main thread 45-90 ms.
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 1, sql_time_limit_ms: 10_000 },
    pluginModules: [new URL("./sleep_plugin.ts", import.meta.url).href],
  });
  const db = new Database(host, { memory_name: "not_stuck" });
  try {
    await db.execute("select 7"); // known to be short from now on
    const waiting = settled(db.execute("select wait_ms(60)"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Waits for the base worker rather than a spare: 60 ms is no runaway.
    assert.equal((await db.execute("select 7")).single_value(), 7);
    assert.equal(waiting.state, "fulfilled");
    assert.equal(host.readPool().threads().length, 1, "no spare started");
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("queries never seen before leave a spare to those known to be short", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 2, sql_time_limit_ms: 10_000 },
  });
  const db = new Database(host, { memory_name: "spare_unknown" });
  try {
    await db.execute("select 7");
    const busy = new AbortController();
    // Three runaways of a text never seen, as when several visitors run the same new query: one
    // takes the base worker, one a spare, and the third waits rather than take the last spare.
    const runaways = [1, 2, 3].map(() =>
      settled(db.execute(ENDLESS, null, { ...quiet, signal: busy.signal }))
    );
    for (let i = 0; i < 3; i++) {
      assert.equal((await db.execute("select 7")).single_value(), 7);
    }
    assert.equal(host.readPool().threads().length, 3, "the base worker and both spares");
    assert.deepEqual(runaways.map((r) => r.state), ["pending", "pending", "pending"]);
    busy.abort();
    await Promise.all(runaways.map((r) => r.promise));
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a query known to be long waits in its own lane, behind the short ones", async () => {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 60_000 },
  });
  const db = new Database(host, { memory_name: "lanes" });
  const slow = "select count(*) from (with recursive c(x) as (select 1 union all " +
    "select x + 1 from c where x < 3000000) select x from c)";
  try {
    await db.execute(slow); // now known to be long (well over 20 ms)
    const busy = new AbortController();
    const first = settled(db.execute(ENDLESS, null, { ...quiet, signal: busy.signal }));
    const long = settled(db.execute(slow, null, quiet));
    const short = settled(db.execute("select 'short'", null, quiet));
    await new Promise((resolve) => setTimeout(resolve, 50));
    busy.abort();
    await first.promise;
    // The short one arrived last but is served first when the worker frees up.
    const answer = await short.promise as { single_value(): unknown };
    assert.equal(answer.single_value(), "short");
    assert.equal(long.state, "pending");
    await long.promise;
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("tiny queries run on the main thread and answer exactly what a worker answers", async () => {
  const host = testHost({ settings: { num_sql_threads: 1 } });
  const db = new Database(host, { memory_name: "tiny_inline" });
  const sql = "select 9007199254740993 as big, x'00ff' as blob, -0.0 as z, 1.5 as r, 'é' as t";
  try {
    const fromWorker = await db.execute(sql);
    const costs = host.readPool().costs;
    // A cold first run may be slow; a few quick ones make the average tiny.
    for (let i = 0; i < 50 && !costs.isTiny(sql); i++) await db.execute(sql);
    assert.ok(costs.isTiny(sql), "after quick runs the query counts as tiny");
    const inline = await db.execute(sql);
    assert.deepEqual(inline.values, fromWorker.values);
    assert.ok(Object.is(inline.values[0][2], -0));
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("prestart boots every base worker before the first query, at the main thread's priority", async () => {
  const file = await Deno.makeTempFile();
  Deno.env.set("VITRINE_TEST_NICE_FILE", file);
  await import("./nice_plugin.ts"); // the main thread's line, first
  const host = testHost({
    settings: { num_sql_threads: 2, spare_sql_threads: 0 },
    pluginModules: [new URL("./nice_plugin.ts", import.meta.url).href],
  });
  const db = new Database(host, { memory_name: "prestart" });
  try {
    const pool = host.readPool();
    await pool.prestart();
    // Both workers are up and have loaded their plugins before any query asked for one.
    assert.equal(pool.threads().length, 2);
    const [mainNice, ...booted] = Deno.readTextFileSync(file).trim().split("\n").map(Number);
    assert.equal(booted.length, 2);
    // A worker boots as fast as the server does: a lower priority while loading its modules
    // starved it on a busy machine (a fresh server's first queries failed at their limit).
    for (const nice of booted) assert.equal(nice, mainNice);
    // Once booted, a base worker steps back for the main thread (db/pool.ts).
    const [[queried]] = (await db.execute("select thread_nice()")).values;
    assert.equal(queried, Math.min(19, mainNice + 5));
  } finally {
    Deno.env.delete("VITRINE_TEST_NICE_FILE");
    db.close();
    host.close();
    await Deno.remove(file);
  }
});
