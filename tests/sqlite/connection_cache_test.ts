import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { STATEMENT_CACHE_MAX_SQL } from "../../src/sqlite/connection.ts";
import { sqlite } from "../../src/sqlite/ffi.ts";

Deno.test("kept statements follow schema changes and never hold a read transaction", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stmt-" });
  const path = `${dir}/kept.db`;
  const writer = Connection.open(path, { mode: "rwc" });
  writer.exec("pragma journal_mode = wal; create table t (a); insert into t values (1);");
  const reader = Connection.open(path, { mode: "ro" });
  try {
    assert.deepEqual(reader.query("select * from t"), {
      columns: ["a"],
      rows: [[1]],
      truncated: false,
      real_columns: [],
    });
    writer.exec("alter table t add column b; update t set b = 2; insert into t values (3, 4);");
    // The same SQL text again: the kept statement is recompiled for the new schema.
    assert.deepEqual(reader.query("select * from t"), {
      columns: ["a", "b"],
      rows: [[1, 2], [3, 4]],
      truncated: false,
      real_columns: [],
    });
    // A kept statement is reset after use, so the writer can checkpoint the whole WAL.
    reader.query("select * from t", undefined, { maxRows: 1 });
    const [busy] = writer.query("pragma wal_checkpoint(truncate)").rows[0];
    assert.equal(busy, 0);
  } finally {
    reader.close();
    writer.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("very long SQL texts are not kept compiled", () => {
  const conn = Connection.open(":memory:");
  try {
    const before = Number(sqlite().sqlite3_memory_used());
    // 32 different 100 KB statements: kept, they would hold several megabytes of SQLite's heap.
    for (let i = 0; i < 32; i++) {
      const sql = `select ${i} as n, '${"x".repeat(STATEMENT_CACHE_MAX_SQL * 6)}' as pad`;
      assert.equal(conn.query(sql).rows[0][0], i);
    }
    const held = Number(sqlite().sqlite3_memory_used()) - before;
    assert.ok(held < 1_000_000, `${held} bytes still held by SQLite`);
    // Short ones still are: the same text twice returns the same answer from the kept statement.
    assert.deepEqual(conn.query("select 1 as a").rows, [[1]]);
    assert.deepEqual(conn.query("select 1 as a").rows, [[1]]);
  } finally {
    conn.close();
  }
});

Deno.test("borrowed statements are kept for the next write of the same SQL, values let go", () => {
  const conn = Connection.open(":memory:");
  try {
    conn.exec("create table t (a, b)");
    const sql = "insert into t (a) values (?)";
    const first = conn.borrow(sql);
    first.bind(["x".repeat(100_000)]);
    while (first.step()) { /* no rows */ }
    conn.giveBack(first);
    // The same compiled statement comes back, with nothing bound: NULL unless bound again.
    const again = conn.borrow(sql);
    assert.equal(again, first);
    while (again.step()) { /* no rows */ }
    assert.deepEqual(conn.query("select length(a) from t order by rowid").rows, [[100_000], [
      null,
    ]]);
    conn.giveBack(again);
    // A schema change in between: compiled again when it runs, once.
    conn.exec("alter table t add column c default 'c'");
    const altered = conn.borrow("select * from t where a is null");
    assert.deepEqual(altered.all(), [[null, null, "c"]]);
    conn.giveBack(altered);
    const kept = conn.borrow(sql);
    assert.equal(kept, first);
    assert.equal(kept.recompiles, 0);
    conn.exec("alter table t add column d");
    kept.bind([1]);
    while (kept.step()) { /* no rows */ }
    assert.equal(kept.recompiles, 1);
    conn.giveBack(kept);
    // A statement borrowed twice at once: the second one is compiled apart.
    const one = conn.borrow(sql);
    const two = conn.borrow(sql);
    assert.notEqual(one, two);
    conn.giveBack(one);
    conn.giveBack(two);
  } finally {
    conn.close();
  }
});
