/**
 * The mix's closed-loop replay (`bench/lib/mix_closed_loop.ts`): clients that wait for a thread
 * count the wait in their URL's latency, and one thread per client does not queue; light URLs
 * marked go first; an open loop asks each URL when it is due.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { closedLoopReplay, openLoopReplay } from "../../bench/lib/mix_closed_loop.ts";
import type { Statement } from "../../bench/lib/mix_floor.ts";

/** A file, and a statement that takes some milliseconds of CPU on it. */
function slowStatement(dir: string): { path: string; statement: Statement } {
  const path = `${dir}/loop.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec("create table t (x integer)");
  conn.close();
  const sql = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 100000) " +
    "select count(*) from n";
  return { path, statement: [sql, null] };
}

Deno.test("a closed loop counts the wait for a thread in each URL's latency", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-closed-loop-test-" });
  try {
    const { path, statement } = slowStatement(dir);
    const requests = Array.from({ length: 6 }, () => [statement]);
    // One thread, three clients: the first three are asked at once.
    const queued = await closedLoopReplay(path, requests, 1, 3);
    assert.equal(queued.latencies.length, 6);
    assert.ok(queued.latencies.every((ms) => ms > 0), String(queued.latencies));
    // The first three were asked at once and served one after the other: each waited for the
    // ones before it.
    const [a, b, c] = queued.latencies;
    assert.ok(
      a < b && b < c,
      `each waited for those asked before it: ${queued.latencies.map((ms) => ms.toFixed(1))}`,
    );
    assert.equal(queued.max, Math.max(...queued.latencies));
    assert.ok(queued.rps > 0);
    // As many threads as clients: nobody waits in a queue (only for the cores, which are shared).
    const alone = await closedLoopReplay(path, [[statement]], 3, 3);
    assert.equal(alone.latencies.length, 1);
    assert.ok(alone.p99 < queued.p99, `${alone.p99} < ${queued.p99}`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("light URLs go before the heavy ones waiting with them", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-closed-loop-test-" });
  try {
    const { path, statement } = slowStatement(dir);
    const light: Statement = ["select 1", null];
    // One thread, four clients: a heavy URL runs, two more heavy ones and a light one wait.
    const requests = [[statement], [statement], [statement], [light]];
    const inOrder = await closedLoopReplay(path, requests, 1, 4);
    const lightFirst = await closedLoopReplay(path, requests, 1, 4, [false, false, false, true]);
    const [, , , asked] = inOrder.latencies;
    const [, second, third, first] = lightFirst.latencies;
    assert.ok(first < second && first < third, `${lightFirst.latencies}`);
    assert.ok(first < asked / 2, `light first ${first} ms, in the order asked ${asked} ms`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an open loop asks each URL when it is due, whatever is still unanswered", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-closed-loop-test-" });
  try {
    const { path, statement } = slowStatement(dir);
    const requests = Array.from({ length: 10 }, () => [statement]);
    const t0 = performance.now();
    // 20 a second for 0.25 s: the first five URLs only, due 50 ms apart.
    const run = await openLoopReplay(path, requests, 2, 20, 0.25);
    assert.equal(run.latencies.length, 5);
    assert.ok(run.latencies.every((ms) => ms > 0), String(run.latencies));
    // The last was due 200 ms after the first: the replay cannot end before.
    assert.ok(performance.now() - t0 >= 200);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
