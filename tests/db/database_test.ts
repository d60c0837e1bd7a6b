import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Database } from "../../src/db/database.ts";
import { makeDbFile, tempDir, testHost } from "./helpers.ts";

Deno.test("name, hash, size and mtime_ns of files and memory databases", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const path = makeDbFile(dir, "facts.v2.db", "create table t (x); insert into t values (1);");
  const immutable = new Database(host, { path, is_mutable: false });
  const mutable = new Database(host, { path, name: "other" });
  const memory = new Database(host, { memory_name: "facts_mem" });
  try {
    const bytes = Deno.readFileSync(path);
    assert.equal(immutable.name, "facts.v2");
    assert.equal(immutable.route, "facts.v2");
    assert.equal(immutable.hash, createHash("sha256").update(bytes).digest("hex"));
    assert.equal(immutable.size, bytes.length);
    assert.equal(typeof immutable.mtime_ns, "bigint");
    const mtimeMs = Deno.statSync(path).mtime!.getTime();
    assert.ok(Math.abs(Number(immutable.mtime_ns! / 1_000_000n) - mtimeMs) <= 1);
    assert.equal(mutable.hash, null);
    assert.equal(mutable.name, "other");
    assert.equal(memory.name, "facts_mem");
    assert.equal(memory.is_memory, true);
    assert.equal(memory.size, 0);
    assert.equal(memory.mtime_ns, null);
    assert.equal(memory.hash, null);
    assert.equal((await immutable.execute("select x from t")).single_value(), 1);
  } finally {
    for (const db of [immutable, mutable, memory]) db.close();
    host.close();
    cleanup();
  }
});

Deno.test("a shared memory database is visible to workers and other Database objects", async () => {
  const host = testHost({ settings: { num_sql_threads: 2 } });
  const writer = new Database(host, { memory_name: "shared_test" });
  const reader = new Database(host, { memory_name: "shared_test", name: "again" });
  try {
    await writer.execute_write_script("create table t (x); insert into t values ('hello');");
    assert.equal((await writer.execute("select x from t")).single_value(), "hello");
    assert.equal((await reader.execute("select x from t")).single_value(), "hello");
    await assert.rejects(reader.execute("delete from t", null, { log_sql_errors: false }));
  } finally {
    writer.close();
    reader.close();
    host.close();
  }
});

for (const threads of [2, 0]) {
  Deno.test(`cross-database queries through crossdb_attach (threads=${threads})`, async () => {
    const { dir, cleanup } = tempDir();
    const host = testHost({ settings: { num_sql_threads: threads } });
    const other = new Database(host, {
      path: makeDbFile(dir, "other.db", "create table t (v); insert into t values ('from other');"),
      is_mutable: false,
    });
    // Unique per run: a terminated worker never closes its connections to a memory database.
    const mem = new Database(host, { memory_name: `crossdb_mem_${threads}` });
    const attached = [other, mem];
    const hub = new Database(host, { is_memory: true, crossdb_attach: () => attached });
    const fileHub = new Database(host, {
      path: makeDbFile(
        dir,
        "hub.db",
        "create table local (v); insert into local values ('local');",
      ),
      crossdb_attach: () => attached,
    });
    try {
      await mem.execute_write_script("create table m (v); insert into m values ('from memory');");
      assert.equal((await hub.execute("select v from [other].t")).single_value(), "from other");
      assert.equal(
        (await hub.execute(`select v from crossdb_mem_${threads}.m`)).single_value(),
        "from memory",
      );
      const joined = await fileHub.execute(
        "select local.v, o.v from local, [other].t as o",
      );
      assert.deepEqual([...joined.rows[0]], ["local", "from other"]);
      const names = (await fileHub.attached_databases()).map((row) => row["name"]);
      assert.deepEqual(names, ["other", `crossdb_mem_${threads}`]);
    } finally {
      for (const db of [hub, fileHub, other, mem]) db.close();
      host.close();
      cleanup();
    }
  });
}

Deno.test("a database made without a host has its own and closes it", async () => {
  const db = new Database(undefined, { memory_name: "standalone" });
  try {
    assert.equal((await db.execute("select 40 + 2")).single_value(), 42);
  } finally {
    db.close();
  }
});

Deno.test("worker prepare_connection hooks from plugin modules run on every connection", async () => {
  const { dir, cleanup } = tempDir();
  const plugin = `${dir}/plugin.ts`;
  Deno.writeTextFileSync(
    plugin,
    `export function prepare_connection({ conn, database }) {
      conn.create_function("shout", 1, (text) => String(text).toUpperCase() + "!" + database);
    }`,
  );
  const host = testHost({
    pluginModules: [new URL(`file://${plugin}`).href],
    prepareConnection: (conn, name) =>
      conn.create_function("shout", 1, (text) => String(text).toUpperCase() + "?" + name),
  });
  const db = new Database(host, { memory_name: "plugged" });
  try {
    assert.equal((await db.execute("select shout('hi')")).single_value(), "HI!plugged");
    assert.equal(
      await db.execute_fn((conn) => conn.query("select shout('hi')").rows[0][0]),
      "HI?plugged",
    );
  } finally {
    db.close();
    host.close();
    cleanup();
  }
});
