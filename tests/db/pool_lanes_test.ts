/**
 * The read pool's lanes (pool_queue.ts): decided again while queries wait, so the queries of one text
 * keep their order when its cost crosses the line; and a long query that has waited long enough
 * goes before the short ones. One worker, held by a runaway while the queue fills, so the order in
 * which the queued queries are answered is the order the pool chose.
 */
import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { LONG_WAIT_MS } from "../../src/db/pool_queue.ts";
import { testHost } from "./helpers.ts";

const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";
const quiet = { log_sql_errors: false };

/** Resolves once `ready()` holds, looking every few milliseconds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A database on a pool of one worker, which `hold` keeps busy until `release` is called. */
async function oneWorker(name: string) {
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 60_000 },
  });
  const db = new Database(host, { memory_name: name });
  const pool = host.readPool();
  await db.execute("select 1"); // the worker is up
  const busy = new AbortController();
  const runaway = db.execute(ENDLESS, null, { ...quiet, signal: busy.signal }).catch(() => {});
  await until(() => pool.threads()[0]?.busy === 1);
  return {
    host,
    db,
    pool,
    release: async () => {
      busy.abort();
      await runaway;
    },
    close: () => {
      db.close();
      host.close();
    },
  };
}

Deno.test("queries of one text keep their order when its cost turns short while they wait", async () => {
  const { db, pool, release, close } = await oneWorker("lanes_relane");
  try {
    const text = "select ? as n";
    pool.costs.record(text, 50); // long so far
    const answered: unknown[] = [];
    const first = db.execute(text, [1]).then((r) => answered.push(r.single_value()));
    await until(() => pool.queued === 1);
    // Its cost falls under the line (as a 21 ms query's does, measured now 19, now 22 ms): the
    // next one of the same text would go to the short lane and overtake the first.
    for (let i = 0; i < 3; i++) pool.costs.record(text, 10);
    assert.ok(!pool.costs.isLong(text));
    const second = db.execute(text, [2]).then((r) => answered.push(r.single_value()));
    await until(() => pool.queued === 2);
    await release();
    await Promise.all([first, second]);
    assert.deepEqual(answered, [1, 2]);
  } finally {
    close();
  }
});

Deno.test("a long query that has waited its turn goes before short ones that came later", async () => {
  const { db, pool, release, close } = await oneWorker("lanes_aged");
  try {
    const long = "select 'long'";
    pool.costs.record(long, 50);
    const answered: unknown[] = [];
    const done = [db.execute(long).then((r) => answered.push(r.single_value()))];
    await new Promise((resolve) => setTimeout(resolve, LONG_WAIT_MS + 20));
    done.push(db.execute("select 'short'").then((r) => answered.push(r.single_value())));
    await until(() => pool.queued === 2);
    await release();
    await Promise.all(done);
    assert.deepEqual(answered, ["long", "short"]);
  } finally {
    close();
  }
});
