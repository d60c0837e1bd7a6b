import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { trace, trace_child_tasks, withTrace } from "../../src/util/trace.ts";
import { testHost } from "./helpers.ts";

Deno.test("queries and trace() blocks are recorded only inside withTrace", async () => {
  const host = testHost();
  const db = new Database(host, { memory_name: "traced" });
  try {
    await db.execute("select 'untraced'");
    // Created first: a schema change next to a read of the shared in-memory database can fail
    // the read with "database schema is locked" (shared-cache locking, not what this tests).
    await db.execute_write("create table t (x)");
    const { result, traces } = await withTrace(async () => {
      await db.execute("select ? as x", [1]);
      await trace_child_tasks(() =>
        Promise.all([db.execute("select 2"), db.execute_write("insert into t values (1)")])
      );
      return await trace("render", { template: "table.html" }, async () => {
        await db.execute("select 3");
        return "done";
      });
    });
    assert.equal(result, "done");
    const labels = traces.map((t) => t.type === "sql" ? t.sql : t.type);
    // The two concurrent queries may finish in either order.
    assert.deepEqual(
      [labels[0], ...labels.slice(1, 3).sort(), ...labels.slice(3)],
      ["select ? as x", "insert into t values (1)", "select 2", "select 3", "render"],
    );
    const first = traces[0];
    assert.equal(first.database, "traced");
    assert.deepEqual(first.params, [1]);
    assert.ok(first.end >= first.start);
    assert.ok(first.duration_ms >= 0);
    assert.ok(first.traceback.some((line) => line.includes("trace_test.ts")));
    assert.equal(traces.at(-1)!.template, "table.html");
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("trace() records a block that throws", async () => {
  const { traces } = await withTrace(() => {
    try {
      trace("boom", {}, () => {
        throw new Error("x");
      });
    } catch { /* expected */ }
  });
  assert.deepEqual(traces.map((t) => t.type), ["boom"]);
});
