import assert from "node:assert/strict";
import { Connection, SqliteError } from "../../src/sqlite/mod.ts";
import { escapeUriPath, openTarget } from "../../src/sqlite/open_uri.ts";
import { createDatabase, withTempDir } from "./helpers.ts";

Deno.test("read-write open creates the file and persists data", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/new.db`;
    createDatabase(path, "create table t(x); insert into t values (42);");
    const conn = Connection.open(path, { mode: "rw" });
    assert.deepEqual(conn.query("select x from t").rows, [[42]]);
    conn.close();
  });
});

Deno.test("mode rw refuses to create a missing file", async () => {
  await withTempDir((dir) => {
    assert.throws(
      () => Connection.open(`${dir}/missing.db`, { mode: "rw" }),
      (error: unknown) =>
        error instanceof SqliteError &&
        error.message === `unable to open database file: ${dir}/missing.db` &&
        error.code === 14,
    );
  });
});

Deno.test("read-only open reads but rejects writes", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/ro.db`;
    createDatabase(path, "create table t(x); insert into t values (1);");
    const conn = Connection.open(path, { mode: "ro" });
    assert.deepEqual(conn.query("select x from t").rows, [[1]]);
    assert.throws(() => conn.run("insert into t values (2)"), {
      name: "SqliteError",
      message: "attempt to write a readonly database",
    });
    assert.throws(
      () => conn.run("insert into t values (2)"),
      (e: unknown) => e instanceof SqliteError && e.code === 8,
    );
    conn.close();
    const withNolock = Connection.open(path, { mode: "ro", nolock: true });
    assert.ok(withNolock.uri.endsWith("?mode=ro&nolock=1"));
    assert.deepEqual(withNolock.query("select count(*) from t").rows, [[1]]);
    withNolock.close();
  });
});

Deno.test("immutable open is read-only", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/imm.db`;
    createDatabase(path, "create table t(x); insert into t values ('a');");
    const conn = Connection.open(path, { immutable: true });
    assert.deepEqual(conn.query("select x from t").rows, [["a"]]);
    assert.throws(() => conn.exec("create table u(y)"), {
      message: "attempt to write a readonly database",
    });
    conn.close();
  });
});

Deno.test("paths with spaces, ?, # and % are escaped in the URI", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/odd name?#%41.db`;
    createDatabase(path, "create table t(x); insert into t values (7);");
    assert.ok(Deno.statSync(path).isFile);
    const conn = Connection.open(path, { mode: "ro" });
    assert.deepEqual(conn.query("select x from t").rows, [[7]]);
    conn.close();
  });
  assert.equal(escapeUriPath("/a b/c?d#e%f"), "/a%20b/c%3Fd%23e%25f");
  assert.equal(openTarget("//x/y.db").uri, "file:/x/y.db");
});

Deno.test("private in-memory databases are separate", () => {
  const a = Connection.open(":memory:");
  const b = Connection.open("ignored", { memory: true });
  a.exec("create table t(x)");
  assert.throws(() => b.query("select * from t"), { message: "no such table: t" });
  a.close();
  b.close();
});

Deno.test("a named shared memory database is seen by two connections while open", () => {
  const first = Connection.open("", { memoryName: "vitrine shared test" });
  const second = Connection.open("", { memoryName: "vitrine shared test" });
  first.exec("create table t(x); insert into t values (5);");
  assert.deepEqual(second.query("select x from t").rows, [[5]]);
  first.close();
  second.close();
  // Every connection closed: the database is gone.
  const third = Connection.open("", { memoryName: "vitrine shared test" });
  assert.throws(() => third.query("select x from t"), { message: "no such table: t" });
  third.close();
});

Deno.test("using a closed connection throws", () => {
  const conn = Connection.open(":memory:");
  conn.close();
  conn.close();
  assert.equal(conn.isOpen, false);
  assert.throws(() => conn.query("select 1"), { message: "Connection is closed" });
});

Deno.test("a bad library path gives a clear error", async () => {
  const code = `import { Connection } from ${
    JSON.stringify(new URL("../../src/sqlite/mod.ts", import.meta.url).href)
  };
try { Connection.open(":memory:"); } catch (e) { console.log(e.message); }`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-lock", code],
    env: { VITRINE_SQLITE_LIB: "/nope/libsqlite3.so" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.match(text, /Could not load the SQLite library "\/nope\/libsqlite3\.so"/);
  assert.match(text, /apt-get install libsqlite3-0/);
});
