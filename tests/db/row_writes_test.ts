import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { deleteRow, insertRows, updateRow, upsertRows } from "../../src/db/row_writes.ts";
import { columnsForRows, createTable, createTableSql } from "../../src/db/table_writes.ts";
import { inferColumnType, quoteName, RowWriteError } from "../../src/db/write_values.ts";
import { JsonReal } from "../../src/util/exact_json.ts";

function memory(sql: string): Connection {
  const conn = Connection.open(":memory:", { memory: true });
  conn.exec(sql);
  return conn;
}

Deno.test("column types are inferred from every value of the column", () => {
  assert.equal(inferColumnType([1, 2n, true, null]), "INTEGER");
  assert.equal(inferColumnType([1, 2.5]), "FLOAT");
  assert.equal(inferColumnType([new JsonReal(1)]), "FLOAT");
  assert.equal(inferColumnType([1, "a"]), "TEXT");
  assert.equal(inferColumnType([{ a: 1 }]), "TEXT");
  assert.equal(inferColumnType([null, undefined]), "TEXT");
  assert.deepEqual(columnsForRows([{ a: 1 }, { b: "x", A: 2.5 }]), [
    { name: "a", type: "FLOAT" },
    { name: "b", type: "TEXT" },
  ]);
});

Deno.test("CREATE TABLE text: one column per line, keys, names that brackets cannot quote", () => {
  assert.equal(
    createTableSql("t", [{ name: "title", type: "TEXT" }], ["id"]),
    "CREATE TABLE [t] (\n   [id] INTEGER PRIMARY KEY,\n   [title] TEXT\n)",
  );
  assert.equal(
    createTableSql("odd]name", [{ name: 'a"b]', type: "TEXT" }, { name: "n", type: "INTEGER" }], [
      'a"b]',
      "n",
    ]),
    'CREATE TABLE "odd]name" (\n   "a""b]" TEXT,\n   [n] INTEGER,\n   PRIMARY KEY ("a""b]", [n])\n)',
  );
  assert.throws(
    () => createTableSql("t", [{ name: "a", type: "TEXT" }], ["a", "b"]),
    RowWriteError,
  );
  assert.equal(quoteName("plain"), "[plain]");
});

Deno.test("writes on a WITHOUT ROWID table return rows by their key", () => {
  const conn = memory("create table kv (k text primary key, v) without rowid");
  try {
    const target = { table: "kv", pks: ["k"] };
    assert.deepEqual(
      insertRows(conn, target, [{ k: "a", v: 1 }, { k: "b" }], { returning: true }),
      [
        { k: "a", v: 1 },
        { k: "b", v: null },
      ],
    );
    assert.deepEqual(upsertRows(conn, target, [{ k: "a", v: 2 }], { returning: true }), [
      { k: "a", v: 2 },
    ]);
    assert.deepEqual(updateRow(conn, target, ["b"], { v: "x" }, { returning: true }), {
      k: "b",
      v: "x",
    });
    assert.equal(deleteRow(conn, target, ["a"]), 1);
    assert.deepEqual(conn.query("select * from kv").rows, [["b", "x"]]);
  } finally {
    conn.close();
  }
});

Deno.test("a failing write rolls back and reports SQLite's message", () => {
  const conn = memory("create table t (id integer primary key, n text not null)");
  try {
    const target = { table: "t", pks: ["id"] };
    assert.throws(
      () => insertRows(conn, target, [{ id: 1, n: "a" }, { id: 2, n: null }]),
      (error: Error) =>
        error instanceof RowWriteError && error.message === "NOT NULL constraint failed: t.n",
    );
    assert.equal(conn.inTransaction, false);
    assert.deepEqual(conn.query("select count(*) from t").rows, [[0]]);
    // A create that fails on its rows leaves no table.
    assert.throws(() =>
      createTable(conn, { table: "u", pks: ["id"], rows: [{ id: 1 }, { id: 1 }] })
    );
    assert.deepEqual(conn.query("select name from sqlite_master where name = 'u'").rows, []);
  } finally {
    conn.close();
  }
});
