import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/mod.ts";
import { ChangeCapture } from "../../../src/db/history/capture.ts";
import { revertChanges } from "../../../src/db/history/revert.ts";
import { sqlite } from "../../../src/sqlite/ffi.ts";

function captured(conn: Connection, sql: string) {
  const capture = ChangeCapture.start(conn)!;
  try {
    conn.exec(sql);
  } catch (error) {
    capture.stop();
    throw error;
  }
  return capture.finish(conn);
}

Deno.test("capture: values by column name, generated columns left out, REALs and BLOBs kept", () => {
  using conn = Connection.open(":memory:");
  conn.exec(
    "create table t (id integer primary key, a, twice as (a * 2), thrice as (a * 3) stored, b);" +
      "insert into t (id, a, b) values (1, 1, 2.0)",
  );
  const records = captured(conn, "update t set a = 5, b = x'0102' where id = 1");
  assert.deepEqual(records, [{
    table: "t",
    pks: "[1]",
    operation: "update",
    before: '{"id":1,"a":1,"b":2.0}',
    after: '{"id":1,"a":5,"b":{"$base64":true,"encoded":"AQI="}}',
  }]);
});

Deno.test("capture: one change per row, a savepoint rolled back and a row changed back leave nothing", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table w (k text primary key, v) without rowid; insert into w values ('a', 1)");
  const records = captured(
    conn,
    "update w set v = 2; update w set v = 3; insert into w values ('b', 1);" +
      "savepoint s; delete from w; rollback to s; release s;" +
      "insert into w values ('c', 1); delete from w where k = 'c'",
  );
  assert.deepEqual(records.map((r) => [r.operation, r.pks, r.before, r.after]), [
    ["update", '["a"]', '{"k":"a","v":1}', '{"k":"a","v":3}'],
    ["insert", '["b"]', null, '{"k":"b","v":1}'],
  ]);
});

Deno.test("capture: a new key is a delete and an insert, and a revert puts both back", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table t (id integer primary key, name); insert into t values (1, 'x')");
  conn.exec("begin");
  const records = captured(conn, "update t set id = 2 where id = 1");
  conn.exec("commit");
  assert.deepEqual(records.map((r) => [r.operation, r.pks]), [["delete", "[1]"], [
    "insert",
    "[2]",
  ]]);
  conn.exec("begin");
  revertChanges(conn, records.map((r, i) => ({ id: i + 1, ...r })));
  conn.exec("commit");
  assert.deepEqual(conn.query("select id, name from t").rows, [[1, "x"]]);
});

Deno.test("capture: rows a trigger or a foreign-key action changed belong to the write too", () => {
  using conn = Connection.open(":memory:");
  conn.exec(
    "pragma foreign_keys = on;" +
      "create table parent (id integer primary key);" +
      "create table child (id integer primary key, parent integer references parent on delete cascade);" +
      "create table audit (what text);" +
      "create trigger parent_gone after delete on parent begin insert into audit values ('gone'); end;" +
      "insert into parent values (1); insert into child values (10, 1)",
  );
  const records = captured(conn, "delete from parent where id = 1");
  assert.deepEqual(records.map((r) => [r.table, r.operation, r.pks]).sort(), [
    ["audit", "insert", "[1]"],
    ["child", "delete", "[10]"],
    ["parent", "delete", "[1]"],
  ]);
});

Deno.test("capture: a table the write created is read back after it, not value by value in the hook", () => {
  using conn = Connection.open(":memory:");
  const lib = sqlite() as { sqlite3_preupdate_new: (...args: never[]) => number };
  const readNew = lib.sqlite3_preupdate_new;
  let reads = 0;
  lib.sqlite3_preupdate_new = (...args) => (reads++, readNew(...args));
  try {
    // An upload's first part: the table and its rows in one write.
    const records = captured(
      conn,
      "create table fresh (id integer primary key, name text, amount real);" +
        "insert into fresh (name, amount) values ('a', 1.0), ('b', 2.5), ('c', null)",
    );
    assert.equal(reads, 0, "values read in the hook");
    assert.deepEqual(records.map((r) => [r.operation, r.pks, r.after]), [
      ["insert", "[1]", '{"id":1,"name":"a","amount":1.0}'],
      ["insert", "[2]", '{"id":2,"name":"b","amount":2.5}'],
      ["insert", "[3]", '{"id":3,"name":"c","amount":null}'],
    ]);
    // A WITHOUT ROWID table has no rowid to find its rows by: its keys are read in the hook.
    const keyed = captured(
      conn,
      "create table keyed (k text primary key, v) without rowid;" +
        "insert into keyed values ('x', 1), ('y', 2.0)",
    );
    assert.equal(reads, 4);
    assert.deepEqual(keyed.map((r) => [r.operation, r.pks, r.after]), [
      ["insert", '["x"]', '{"k":"x","v":1}'],
      ["insert", '["y"]', '{"k":"y","v":2.0}'],
    ]);
  } finally {
    lib.sqlite3_preupdate_new = readNew;
  }
});

Deno.test("capture: a WITHOUT ROWID table renamed to a dropped rowid table's name records no made-up keys", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table t (id integer primary key, a text); insert into t values (1, 'one')");
  const records = captured(
    conn,
    "create table u (k text primary key, v) without rowid; update t set a = 'two' where id = 1;" +
      "drop table t; alter table u rename to t; insert into t values ('x', 1);" +
      "create table kept (id integer primary key); insert into kept values (3)",
  );
  // Not a delete of {"k":1,"v":"one"}, which never was a row: that table's rows are left out.
  assert.deepEqual(records, [{
    table: "kept",
    pks: "[3]",
    operation: "insert",
    before: null,
    after: '{"id":3}',
  }]);
});
