import assert from "node:assert/strict";
import { compileOptions, Connection, SqliteError, sqliteVersion } from "../../src/sqlite/mod.ts";

function setup(): Connection {
  const conn = Connection.open(":memory:");
  conn.exec(`
    create table people (id integer primary key, name text not null, score real, born date);
    insert into people (name, score, born) values ('ann', 1.5, '1990-01-01'), ('bob', null, null);
  `);
  return conn;
}

Deno.test("query returns columns and array rows", () => {
  const conn = setup();
  const result = conn.query("select id, name, score from people order by id");
  assert.deepEqual(result, {
    columns: ["id", "name", "score"],
    rows: [[1, "ann", 1.5], [2, "bob", null]],
    truncated: false,
    // score held REAL values only (and a NULL): its whole numbers would print as `12.0`.
    real_columns: [2],
  });
  conn.close();
});

Deno.test("query maxRows truncates and says so", () => {
  const conn = setup();
  assert.deepEqual(conn.query("select name from people order by id", [], { maxRows: 1 }), {
    columns: ["name"],
    rows: [["ann"]],
    truncated: true,
    real_columns: [],
  });
  assert.equal(conn.query("select name from people", [], { maxRows: 2 }).truncated, false);
  conn.close();
});

Deno.test("statement columns, declared types and readonly", () => {
  const conn = setup();
  const statement = conn.prepare("select id, name, score, born, 1 + 1 as two from people");
  assert.deepEqual(statement.columns(), ["id", "name", "score", "born", "two"]);
  assert.deepEqual(statement.declaredTypes(), ["INTEGER", "TEXT", "REAL", "date", null]);
  assert.equal(statement.readonly, true);
  statement.finalize();
  const insert = conn.prepare("insert into people (name) values ('c')");
  assert.equal(insert.readonly, false);
  insert.finalize();
  conn.close();
});

Deno.test("statement bind/step/values/reset can be reused", () => {
  const conn = setup();
  const statement = conn.prepare("select name from people where id = ?");
  assert.equal(statement.bind([1]).step(), true);
  assert.deepEqual(statement.values(), ["ann"]);
  assert.equal(statement.step(), false);
  assert.deepEqual(statement.bind([2]).all(), [["bob"]]);
  statement.reset();
  assert.deepEqual(statement.all(), [["bob"]], "reset keeps the bindings");
  statement.finalize();
  statement.finalize();
  assert.throws(() => statement.step(), { message: "Statement is finalized" });
  conn.close();
});

Deno.test("run reports changes and lastInsertRowid", () => {
  const conn = setup();
  assert.deepEqual(conn.run("insert into people (name) values (?)", ["cy"]), {
    changes: 1,
    lastInsertRowid: 3,
  });
  assert.equal(conn.lastInsertRowid, 3);
  assert.equal(conn.run("update people set score = 0").changes, 3);
  assert.equal(conn.changes, 3);
  assert.equal(conn.totalChanges, 2 + 1 + 3);
  conn.run("insert into people (id, name) values (?, 'big')", [2n ** 62n]);
  assert.equal(conn.lastInsertRowid, 2n ** 62n);
  conn.close();
});

Deno.test("errors carry SQLite's message and codes", () => {
  const conn = setup();
  assert.throws(() => conn.query("select * from nope"), (error: unknown) => {
    assert.ok(error instanceof SqliteError);
    assert.equal(error.message, "no such table: nope");
    assert.equal(error.code, 1);
    return true;
  });
  assert.throws(() => conn.query("selec 1"), { message: 'near "selec": syntax error' });
  assert.throws(() => conn.run("insert into people (id, name) values (1, 'dup')"), (error) => {
    assert.ok(error instanceof SqliteError);
    assert.equal(error.message, "UNIQUE constraint failed: people.id");
    assert.equal(error.code, 19);
    assert.equal(error.extendedCode, 1555); // SQLITE_CONSTRAINT_PRIMARYKEY
    return true;
  });
  assert.throws(() => conn.run("insert into people (name) values (null)"), {
    message: "NOT NULL constraint failed: people.name",
  });
  // Still usable afterwards.
  assert.deepEqual(conn.query("select count(*) from people").rows, [[2]]);
  conn.close();
});

Deno.test("empty and comment-only SQL give no rows", () => {
  const conn = setup();
  for (const sql of ["", "   ", "-- just a comment", "/* block */"]) {
    assert.deepEqual(conn.query(sql), {
      columns: [],
      rows: [],
      truncated: false,
      real_columns: [],
    });
    const statement = conn.prepare(sql);
    assert.equal(statement.pointer, null);
    assert.equal(statement.step(), false);
    statement.finalize();
  }
  assert.equal(conn.run("").changes, conn.changes, "nothing ran, so changes is unchanged");
  conn.close();
});

Deno.test("exec runs scripts and stops at the first error", () => {
  const conn = Connection.open(":memory:");
  conn.exec("create table a(x); insert into a values (1); insert into a values (2);");
  assert.deepEqual(conn.query("select sum(x) from a").rows, [[3]]);
  assert.throws(() => conn.exec("insert into a values (3); insert into nope values (4);"), {
    message: "no such table: nope",
  });
  assert.deepEqual(conn.query("select sum(x) from a").rows, [[6]]);
  conn.close();
});

Deno.test("prepare keeps the unparsed tail", () => {
  const conn = Connection.open(":memory:");
  const statement = conn.prepare("select 1; select 2");
  assert.equal(statement.tail, " select 2");
  statement.finalize();
  conn.close();
});

Deno.test("inTransaction follows BEGIN/COMMIT", () => {
  const conn = setup();
  assert.equal(conn.inTransaction, false);
  conn.exec("begin");
  assert.equal(conn.inTransaction, true);
  conn.exec("commit");
  assert.equal(conn.inTransaction, false);
  conn.close();
});

Deno.test("sqliteVersion and compileOptions describe the library", () => {
  assert.match(sqliteVersion(), /^3\.\d+\.\d+$/);
  const options = compileOptions();
  assert.ok(options.some((option) => option.startsWith("THREADSAFE=")));
});

Deno.test("pointerValue is the non-zero handle address", () => {
  const conn = Connection.open(":memory:");
  assert.equal(typeof conn.pointerValue, "bigint");
  assert.notEqual(conn.pointerValue, 0n);
  conn.close();
});

Deno.test("query() refuses a second statement instead of ignoring it", () => {
  const conn = Connection.open(":memory:", { memory: true });
  try {
    conn.exec("create table t (x); insert into t values (1);");
    assert.throws(
      () => conn.query("select 1; delete from t"),
      /You can only execute one statement at a time/,
    );
    assert.deepEqual(conn.query("select count(*) from t;  -- trailing comment").rows, [[1]]);
  } finally {
    conn.close();
  }
});

Deno.test("setBusyTimeout() is the busy_timeout pragma's value", () => {
  using conn = Connection.open(":memory:");
  conn.setBusyTimeout(1234);
  assert.deepEqual(conn.query("pragma busy_timeout").rows, [[1234]]);
  conn.setBusyTimeout(0);
  assert.deepEqual(conn.query("pragma busy_timeout").rows, [[0]]);
});
