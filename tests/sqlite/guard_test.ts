/**
 * SQLite's defences for untrusted SQL and files (src/sqlite/guard.ts): DEFENSIVE and
 * trusted_schema=OFF on every connection, lowered limits and the visitor authorizer inside
 * `Connection.restricted`, the byte cap of `query()`, and the process-wide heap limit.
 */
import assert from "node:assert/strict";
import { Connection, SqliteError } from "../../src/sqlite/mod.ts";
import { VISITOR_LIMITS } from "../../src/sqlite/guard.ts";
import { createDatabase, withTempDir } from "./helpers.ts";

const VISITOR = { ...VISITOR_LIMITS, length: 1_000_000 };

/** Runs `sql` as visitor SQL and returns its rows. */
function visitor(conn: Connection, sql: string, params?: unknown[]) {
  return conn.restricted(() => conn.query(sql, params as never).rows, VISITOR);
}

function refused(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SqliteError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("every connection is opened defensive, with trusted_schema off", () => {
  using conn = Connection.open(":memory:");
  assert.equal(conn.query("pragma trusted_schema").rows[0][0], 0);
  conn.exec("create table t (a)");
  // writable_schema is how ordinary SQL corrupts a file; DEFENSIVE makes it a no-op.
  conn.exec("pragma writable_schema = on");
  refused(
    () => conn.run("update sqlite_master set sql = 'garbage' where name = 't'"),
    /may not be modified/,
  );
});

Deno.test("schema SQL may only call innocuous functions (trusted_schema off)", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/schema.db`;
    createDatabase(path, "create table t (a); insert into t values (1), (2);");
    using writer = Connection.open(path);
    writer.create_function("risky", 1, (a) => Number(a) * 10);
    writer.create_function("safe", 1, (a) => Number(a) * 10, { innocuous: true });
    writer.exec(
      "create view v_risky as select risky(a) as x from t; " +
        "create view v_safe as select safe(a) as x from t;",
    );
    refused(() => writer.query("select * from v_risky"), /unsafe use of risky/);
    assert.deepEqual(writer.query("select * from v_safe").rows, [[10], [20]]);
    // The same function called directly by the application is fine.
    assert.deepEqual(writer.query("select risky(2)").rows, [[20]]);
  });
});

Deno.test("visitor SQL cannot call functions that leak addresses or touch files", () => {
  using conn = Connection.open(":memory:");
  // Outside the restriction the function exists and hands out a pointer (the reason it is denied).
  assert.equal((conn.query("select fts3_tokenizer('simple')").rows[0][0] as Uint8Array).length, 8);
  for (
    const sql of [
      "select fts3_tokenizer('simple')",
      "select fts3_tokenizer('evil', x'4141414141414141')",
      "select load_extension('/tmp/x.so')",
    ]
  ) {
    refused(() => visitor(conn, sql), /not authorized/);
  }
  // Functions an extension could add are denied by name even when they exist.
  conn.create_function("readfile", 1, () => "secret");
  conn.create_function("writefile", 2, () => 1);
  refused(() => visitor(conn, "select readfile('/etc/passwd')"), /not authorized/);
  refused(() => visitor(conn, "select writefile('/tmp/x', 'y')"), /not authorized/);
  assert.deepEqual(visitor(conn, "select upper('ok'), json_array(1, 2)"), [["OK", "[1,2]"]]);
});

Deno.test("visitor SQL cannot attach files, change settings or the schema", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table t (a); insert into t values (1)");
  refused(() => visitor(conn, "attach database '/etc/hosts' as h"), /not authorized/);
  refused(() => visitor(conn, "pragma query_only = 0"), /not authorized/);
  refused(() => visitor(conn, "pragma trusted_schema = 1"), /not authorized/);
  refused(() => visitor(conn, "pragma user_version = 5"), /not authorized/);
  refused(() => visitor(conn, "create temp table x (a)"), /not authorized/);
  refused(() => visitor(conn, "drop table t"), /not authorized/);
  refused(() => visitor(conn, "select * from sqlite_stmt"), /prohibited/);
  // A WITH clause in front of a write passes a "starts with SELECT or WITH" check; not this one.
  refused(
    () => visitor(conn, "with x as (select 2) insert into t select * from x"),
    /would change data/,
  );
  assert.deepEqual(conn.query("select count(*) from t").rows, [[1]]);
  // Reading pragmas stays possible, in both spellings.
  assert.equal(visitor(conn, "pragma table_info(t)").length, 1);
  assert.equal(visitor(conn, "select name from pragma_table_info('t')")[0][0], "a");
  assert.deepEqual(visitor(conn, "pragma user_version"), [[0]]);
  // And everything is back to normal for the application afterwards.
  conn.exec("pragma user_version = 5; create temp table x (a)");
  assert.deepEqual(conn.query("pragma user_version").rows, [[5]]);
});

Deno.test("FTS5, FTS4 and R*Tree tables work for visitors on a freshly opened file", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/vtabs.db`;
    createDatabase(
      path,
      `create virtual table docs using fts5(body);
       insert into docs values ('the quick brown fox'), ('lazy dogs');
       create virtual table old using fts4(body);
       insert into old values ('brown bears');
       create virtual table boxes using rtree(id, minx, maxx);
       insert into boxes values (1, 0, 10), (2, 20, 30);`,
    );
    // The virtual tables prepare their own statements on first use, under the authorizer.
    using conn = Connection.open(path, { mode: "ro" });
    assert.deepEqual(visitor(conn, "select body from docs where docs match 'fox'"), [[
      "the quick brown fox",
    ]]);
    assert.deepEqual(visitor(conn, "select body from old where old match 'bears'"), [[
      "brown bears",
    ]]);
    assert.deepEqual(visitor(conn, "select id from boxes where minx >= 15"), [[2]]);
  });
});

Deno.test("visitor limits apply inside restricted() and are restored afterwards", () => {
  using conn = Connection.open(":memory:");
  const before = conn.limits();
  refused(() => visitor(conn, `select 1 where 'x' like '${"%a".repeat(600)}'`), /too complex/);
  refused(() => visitor(conn, `select 1${" + 1".repeat(150)}`), /maximum depth 100/);
  refused(() => visitor(conn, `select 1${" union select 1".repeat(60)}`), /too many terms/);
  refused(() => visitor(conn, `select ${"?,".repeat(1500)}1`), /too many SQL variables/);
  refused(() => visitor(conn, `select '${"x".repeat(120_000)}'`), /too long|too big/);
  refused(() => visitor(conn, "select zeroblob(2000000)"), /too big/);
  // Multi-row VALUES is not a compound select for the limit.
  assert.equal(visitor(conn, `values ${"(1),".repeat(200)}(1)`).length, 201);
  assert.deepEqual(conn.limits(), before);
  assert.equal(conn.query("select length(zeroblob(2000000))").rows[0][0], 2_000_000);
});

Deno.test("unrestricted work after restricted work runs without the visitor's limits and authorizer", () => {
  using conn = Connection.open(":memory:");
  const before = conn.limits();
  // A statement compiled before, stepped after: the limits act at run time too (length).
  const big = conn.prepare("select length(zeroblob(2000000)), zeroblob(2000000)");
  conn.exec("create table t (a)");
  assert.equal(visitor(conn, "select count(*) from t")[0][0], 0);
  assert.ok(big.step());
  assert.equal(big.values()[0], 2_000_000);
  big.finalize();
  // Schema changes are refused to visitors only; the connection's own exec, run, query and
  // execute (Python's API) still may.
  conn.exec("create table u (b)");
  assert.equal(visitor(conn, "select count(*) from u")[0][0], 0);
  conn.run("insert into u values (zeroblob(2000000))");
  assert.equal(visitor(conn, "select count(*) from u")[0][0], 1);
  assert.equal(conn.query("select length(b) from u").rows[0][0], 2_000_000);
  assert.equal(visitor(conn, "select length(b) from u")[0][0], 2_000_000);
  assert.equal(conn.execute("select length(b) from u").fetchone()?.[0], 2_000_000);
  assert.equal(visitor(conn, "select 1")[0][0], 1);
  conn.exec("create table v (c)");
  assert.equal(visitor(conn, "select 2")[0][0], 2);
  assert.deepEqual(conn.limits(), before);
  // And the visitor's limits are back for the next restricted query.
  refused(() => visitor(conn, "select b from u"), /too big/);
  refused(() => visitor(conn, "create table w (d)"), /not authorized/);
});

Deno.test("a nested restricted() call with other limits leaves the outer call its own", () => {
  using conn = Connection.open(":memory:");
  const looser = { ...VISITOR, length: 5_000_000 };
  const rows = conn.restricted(() => {
    const inner = conn.restricted(
      () => conn.query("select length(zeroblob(3000000))").rows,
      looser,
    );
    assert.equal(inner[0][0], 3_000_000);
    refused(() => conn.query("select zeroblob(2000000)"), /too big/);
    refused(() => conn.query("create table x (a)"), /not authorized/);
    return conn.query("select 1").rows;
  }, VISITOR);
  assert.deepEqual(rows, [[1]]);
  assert.equal(conn.query("select length(zeroblob(6000000))").rows[0][0], 6_000_000);
});

Deno.test("a stored value larger than the length limit is refused, other columns are not", () => {
  using conn = Connection.open(":memory:");
  conn.exec(
    "create table t (id integer primary key, b blob); " +
      "insert into t values (1, zeroblob(3000000)), (2, x'00')",
  );
  assert.deepEqual(visitor(conn, "select id, length(b) from t"), [[1, 3_000_000], [2, 1]]);
  refused(() => visitor(conn, "select b from t where id = 1"), /too big/);
});

Deno.test("query() caps the total bytes of text and BLOBs it holds", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table t (s)");
  for (let i = 0; i < 50; i++) conn.run("insert into t values (?)", ["x".repeat(1000)]);
  assert.equal(conn.query("select s from t", [], { maxBytes: 50_000 }).rows.length, 50);
  assert.throws(
    () => conn.query("select s from t", [], { maxBytes: 49_999 }),
    (error: unknown) => error instanceof SqliteError && error.code === 18,
  );
  // The statement was finalized: the connection is usable.
  assert.equal(conn.query("select count(*) from t").rows[0][0], 50);
});

Deno.test("the hard heap limit turns a huge allocation into 'out of memory'", async () => {
  // Process-wide, so it runs in a process of its own.
  const script = `
    import { Connection } from "${new URL("../../src/sqlite/mod.ts", import.meta.url).href}";
    import { hardHeapLimit, setHardHeapLimit } from "${
    new URL("../../src/sqlite/guard.ts", import.meta.url).href
  }";
    setHardHeapLimit(16 * 1024 * 1024);
    const conn = Connection.open(":memory:");
    let message = "none";
    try { conn.query("select length(randomblob(50000000))"); } catch (e) { message = e.message; }
    const small = conn.query("select length(randomblob(1000000))").rows[0][0];
    console.log(JSON.stringify({ limit: hardHeapLimit(), message, small }));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-lock", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.deepEqual(result, { limit: 16 * 1024 * 1024, message: "out of memory", small: 1_000_000 });
});
