import assert from "node:assert/strict";
import { Connection, SqliteError } from "../../src/sqlite/mod.ts";
import { withTempDir } from "./helpers.ts";

function setup(): Connection {
  const conn = Connection.open(":memory:");
  conn.exec(
    "create table t(id integer primary key, v text); insert into t(v) values ('a'), ('b');",
  );
  return conn;
}

Deno.test("execute returns a Python-like cursor", () => {
  const conn = setup();
  const cursor = conn.execute("select id, v from t where id >= ? order by id", [1]);
  assert.deepEqual(cursor.columns, ["id", "v"]);
  assert.deepEqual(cursor.description, [
    ["id", null, null, null, null, null, null],
    ["v", null, null, null, null, null, null],
  ]);
  assert.equal(cursor.rowcount, -1);
  assert.deepEqual(cursor.fetchone(), [1, "a"]);
  assert.deepEqual(cursor.fetchall(), [[2, "b"]]);
  assert.equal(cursor.fetchone(), null);
  assert.deepEqual(cursor.rows, [[1, "a"], [2, "b"]]);
  assert.deepEqual([...conn.execute("select v from t order by id")], [["a"], ["b"]]);
  conn.close();
});

Deno.test("execute of DML opens a transaction that commit() ends", () => {
  const conn = setup();
  assert.equal(conn.inTransaction, false);
  const cursor = conn.execute("insert into t (v) values (:v)", { v: "c" });
  assert.equal(cursor.rowcount, 1);
  assert.equal(cursor.lastrowid, 3);
  assert.equal(cursor.description, null);
  assert.equal(conn.inTransaction, true);
  conn.commit();
  assert.equal(conn.inTransaction, false);
  assert.equal(conn.execute("update t set v = upper(v)").rowcount, 3);
  conn.commit();
  assert.deepEqual(conn.query("select group_concat(v) from t").rows, [["A,B,C"]]);
  conn.close();
});

Deno.test("rollback undoes an implicit transaction", () => {
  const conn = setup();
  conn.execute("  /* note */ DELETE from t");
  assert.equal(conn.inTransaction, true);
  conn.rollback();
  assert.equal(conn.inTransaction, false);
  assert.deepEqual(conn.query("select count(*) from t").rows, [[2]]);
  conn.rollback(); // nothing open: no error
  conn.close();
});

Deno.test("an uncommitted execute leaves other connections unaware of the write", async () => {
  await withTempDir((dir) => {
    const writer = Connection.open(`${dir}/w.db`);
    writer.exec("create table t(x)");
    const reader = Connection.open(`${dir}/w.db`, { mode: "ro" });
    writer.execute("insert into t values (1)");
    assert.deepEqual(reader.query("select count(*) from t").rows, [[0]]);
    writer.commit();
    assert.deepEqual(reader.query("select count(*) from t").rows, [[1]]);
    writer.close();
    reader.close();
  });
});

Deno.test("run/query/exec never open a transaction implicitly", () => {
  const conn = setup();
  conn.run("insert into t (v) values ('z')");
  conn.query("delete from t where v = 'z'");
  conn.exec("update t set v = 'q' where id = 1");
  assert.equal(conn.inTransaction, false);
  conn.execute("select * from t");
  assert.equal(conn.inTransaction, false);
  conn.close();
});

Deno.test("execute refuses several statements; executescript commits and runs them", () => {
  const conn = setup();
  assert.throws(() => conn.execute("select 1; select 2"), {
    message: "You can only execute one statement at a time.",
  });
  assert.equal(conn.execute("select 1;  -- trailing comment").rows.length, 1);
  conn.execute("insert into t (v) values ('pending')");
  conn.executescript("insert into t (v) values ('x'); insert into t (v) values ('y');");
  assert.equal(conn.inTransaction, false);
  assert.deepEqual(conn.query("select count(*) from t").rows, [[5]]);
  conn.close();
});

Deno.test("loadExtension failure names the file", () => {
  const conn = Connection.open(":memory:");
  assert.throws(() => conn.loadExtension("/nope/missing_extension"), (error: unknown) => {
    assert.ok(error instanceof SqliteError);
    assert.match(error.message, /^Could not load SQLite extension \/nope\/missing_extension: /);
    assert.match(error.message, /cannot open shared object file/);
    return true;
  });
  // The SQL-level load_extension() stays disabled.
  assert.throws(() => conn.query("select load_extension('/nope/x')"), {
    message: "not authorized",
  });
  conn.close();
});
