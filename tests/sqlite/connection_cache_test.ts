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
