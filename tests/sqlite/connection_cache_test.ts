import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";

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
    });
    writer.exec("alter table t add column b; update t set b = 2; insert into t values (3, 4);");
    // The same SQL text again: the kept statement is recompiled for the new schema.
    assert.deepEqual(reader.query("select * from t"), {
      columns: ["a", "b"],
      rows: [[1, 2], [3, 4]],
      truncated: false,
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
