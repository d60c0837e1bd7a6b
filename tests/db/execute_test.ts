import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { QueryInterrupted } from "../../src/db/errors.ts";
import { SqliteError } from "../../src/sqlite/errors.ts";
import { makeDbFile, tempDir, testHost } from "./helpers.ts";

const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";
function numbersSql(): string {
  return `create table numbers (n integer primary key, label text);
  insert into numbers (n, label)
    with recursive s(v) as (select 1 union all select v + 1 from s where v < 50)
    select v, 'n' || v from s;`;
}

for (const threads of [2, 0]) {
  Deno.test(`execute (num_sql_threads=${threads}): rows, truncate and page_size`, async () => {
    const { dir, cleanup } = tempDir();
    const host = testHost({ settings: { num_sql_threads: threads, max_returned_rows: 20 } });
    const db = new Database(host, { path: makeDbFile(dir, "numbers.db", numbersSql()) });
    try {
      const all = await db.execute("select n, label from numbers where n <= ? order by n", [3]);
      assert.deepEqual(all.columns, ["n", "label"]);
      assert.deepEqual(all.rows.map((r) => r.toObject()), [
        { n: 1, label: "n1" },
        { n: 2, label: "n2" },
        { n: 3, label: "n3" },
      ]);
      assert.equal(all.truncated, false);

      const capped = await db.execute("select n from numbers order by n");
      assert.equal(capped.length, 20);
      assert.equal(capped.truncated, true);

      const paged = await db.execute("select n from numbers order by n", null, { page_size: 5 });
      assert.deepEqual(paged.rows.map((r) => r[0]), [1, 2, 3, 4, 5]);
      assert.equal(paged.truncated, true);

      const exact = await db.execute("select n from numbers where n <= 5", [], { page_size: 5 });
      assert.equal(exact.length, 5);
      assert.equal(exact.truncated, false);

      const everything = await db.execute("select n from numbers", null, { truncate: false });
      assert.equal(everything.length, 50);
      assert.equal(everything.truncated, false);

      const named = await db.execute("select label from numbers where n = :n", { n: 7 });
      assert.equal(named.single_value(), "n7");
    } finally {
      db.close();
      host.close();
      cleanup();
    }
  });

  Deno.test(`execute (num_sql_threads=${threads}): time limit and SQL errors`, async () => {
    const host = testHost({ settings: { num_sql_threads: threads } });
    const db = new Database(host, { memory_name: `limits_${threads}` });
    try {
      await assert.rejects(
        db.execute(ENDLESS, null, { custom_time_limit: 50 }),
        (error: unknown) => {
          assert.ok(error instanceof QueryInterrupted);
          assert.equal(error.sql, ENDLESS);
          return true;
        },
      );
      // The connection (and worker) that was interrupted keeps working.
      assert.equal((await db.execute("select 1 + 1")).single_value(), 2);
      await assert.rejects(
        db.execute("select * from no_such_table", null, { log_sql_errors: false }),
        (error: unknown) => {
          assert.ok(error instanceof SqliteError);
          assert.equal(error.message, "no such table: no_such_table");
          return true;
        },
      );
    } finally {
      db.close();
      host.close();
    }
  });
}

Deno.test("custom_time_limit cannot raise the configured limit", async () => {
  const host = testHost({ settings: { sql_time_limit_ms: 40, num_sql_threads: 1 } });
  const db = new Database(host, { memory_name: "limit_raise" });
  try {
    await assert.rejects(
      db.execute(ENDLESS, null, { custom_time_limit: 60_000 }),
      QueryInterrupted,
    );
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("a fast query is answered while a slow one runs on another worker", async () => {
  const host = testHost({ settings: { num_sql_threads: 2, sql_time_limit_ms: 60_000 } });
  const db = new Database(host, { memory_name: "concurrent" });
  try {
    const events: string[] = [];
    const controller = new AbortController();
    const slow = db.execute(ENDLESS, null, { signal: controller.signal }).then(
      () => events.push("slow finished"),
      (error) => events.push(error instanceof QueryInterrupted ? "slow interrupted" : `${error}`),
    );
    const fast = await db.execute("select 'fast'");
    events.push(`fast: ${fast.single_value()}`);
    controller.abort();
    await slow;
    assert.deepEqual(events, ["fast: fast", "slow interrupted"]);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("an aborted signal interrupts a running query", async () => {
  const host = testHost({ settings: { num_sql_threads: 1, sql_time_limit_ms: 60_000 } });
  const db = new Database(host, { memory_name: "abort" });
  try {
    const controller = new AbortController();
    const outcome = assert.rejects(
      db.execute(ENDLESS, null, { signal: controller.signal }),
      QueryInterrupted,
    );
    setTimeout(() => controller.abort(), 100);
    await outcome;
    assert.equal((await db.execute("select 3")).single_value(), 3);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("bigints and blobs survive the trip through a worker", async () => {
  const host = testHost({ settings: { num_sql_threads: 1 } });
  const db = new Database(host, { memory_name: "values" });
  try {
    const big = 9007199254740993n;
    const blob = new Uint8Array([0, 1, 2, 250, 255]);
    const row = (await db.execute(
      "select ? as big, 9223372036854775807 as max, -9223372036854775808 as min, ? as blob, 1.5 as f, 9e999 as inf, 'x' as t, null as n",
      [big, blob],
    )).rows[0];
    assert.equal(row["big"], big);
    assert.equal(row["max"], 9223372036854775807n);
    assert.equal(row["min"], -9223372036854775808n);
    assert.deepEqual(row["blob"], blob);
    assert.ok(row["blob"] instanceof Uint8Array);
    assert.equal(row["f"], 1.5);
    assert.equal(row["inf"], Infinity);
    assert.equal(row["t"], "x");
    assert.equal(row["n"], null);
  } finally {
    db.close();
    host.close();
  }
});

Deno.test("execute_fn runs a function on a main-thread connection", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const db = new Database(host, { path: makeDbFile(dir, "fn.db", numbersSql()) });
  try {
    const count = await db.execute_fn((conn) =>
      conn.query("select count(*) from numbers").rows[0][0]
    );
    assert.equal(count, 50);
    await assert.rejects(db.execute_fn((conn) => conn.exec("delete from numbers")), /readonly/);
  } finally {
    db.close();
    host.close();
    cleanup();
  }
});
