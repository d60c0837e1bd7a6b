import assert from "node:assert/strict";
import { Connection, isInterrupted, SqliteError } from "../../src/sqlite/mod.ts";
import { progressSteps } from "../../src/sqlite/connection.ts";

const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";

function assertInterrupted(error: unknown): true {
  assert.ok(error instanceof SqliteError);
  assert.equal(error.message, "interrupted");
  assert.equal(error.code, 9);
  assert.ok(isInterrupted(error));
  return true;
}

Deno.test("a deadline interrupts an endless query and the connection stays usable", () => {
  const conn = Connection.open(":memory:");
  conn.setDeadline(50);
  assert.throws(() => conn.query(ENDLESS), assertInterrupted);
  conn.setDeadline(null);
  assert.deepEqual(conn.query("select 1 + 1").rows, [[2]]);
  conn.close();
});

Deno.test("a short deadline (checked every opcode) also interrupts", () => {
  const conn = Connection.open(":memory:");
  conn.setDeadline(5);
  assert.throws(() => conn.query(ENDLESS), assertInterrupted);
  conn.setDeadline(null);
  conn.close();
});

Deno.test("the usual limits are checked every 10,000 opcodes, shorter ones more often", () => {
  // Every 1,000 opcodes cost 1.5% of a 40 ms scan's CPU under the 1 s default (issue 42).
  assert.equal(progressSteps(1000), 10_000);
  assert.equal(progressSteps(200), 10_000);
  assert.equal(progressSteps(199), 1000);
  assert.equal(progressSteps(21), 1000);
  assert.equal(progressSteps(20), 1);
});

Deno.test("a deadline of the usual size still stops an endless query close to it", () => {
  const conn = Connection.open(":memory:");
  const started = performance.now();
  conn.setDeadline(250);
  assert.throws(() => conn.query(ENDLESS), assertInterrupted);
  const took = performance.now() - started;
  conn.setDeadline(null);
  assert.ok(took >= 249 && took < 1000, `interrupted after ${took} ms`);
  conn.close();
});

Deno.test("a generous deadline lets a finite query finish; null removes it", () => {
  const conn = Connection.open(":memory:");
  conn.setDeadline(60_000);
  const finite = "with recursive c(x) as (select 1 union all select x + 1 from c limit 10000) " +
    "select count(*) from c";
  assert.deepEqual(conn.query(finite).rows, [[10000]]);
  conn.setDeadline(null);
  assert.deepEqual(conn.query(finite).rows, [[10000]]);
  conn.close();
});

Deno.test("a deadline interrupts a write inside exec, which can be rolled back", () => {
  const conn = Connection.open(":memory:");
  conn.exec("create table t(x)");
  conn.exec("begin");
  conn.setDeadline(30);
  assert.throws(
    () => conn.exec(`insert into t ${ENDLESS.replace("count(*)", "x")}`),
    assertInterrupted,
  );
  conn.setDeadline(null);
  conn.rollback();
  assert.deepEqual(conn.query("select count(*) from t").rows, [[0]]);
  conn.close();
});

Deno.test("interrupt() from inside a running query stops it", () => {
  const conn = Connection.open(":memory:");
  let calls = 0;
  conn.create_function("tick", 0, () => {
    if (++calls === 1000) conn.interrupt();
    return 1;
  });
  assert.throws(
    () => conn.query(ENDLESS.replace("select x + 1 from c", "select x + tick() from c")),
    assertInterrupted,
  );
  assert.ok(calls >= 1000);
  assert.deepEqual(conn.query("select 3").rows, [[3]]);
  conn.close();
});

Deno.test("sqlite3_interrupt on pointerValue from a worker thread stops a query", async () => {
  const conn = Connection.open(":memory:");
  const worker = new Worker(new URL("./interrupt_worker.ts", import.meta.url), { type: "module" });
  const done = new Promise((resolve) => worker.onmessage = resolve);
  conn.setDeadline(10_000); // safety net so a broken interrupt cannot hang the test run
  worker.postMessage({ pointer: conn.pointerValue, afterMs: 50 });
  // The worker only starts its timer once it receives the message; the query is already running.
  try {
    assert.throws(() => conn.query(ENDLESS), assertInterrupted);
  } finally {
    await done;
    worker.terminate();
  }
  conn.setDeadline(null);
  assert.deepEqual(conn.query("select 4").rows, [[4]]);
  conn.close();
});
