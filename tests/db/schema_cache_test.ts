import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { SCHEMA_RECHECK_MS } from "../../src/db/schema_cache.ts";

Deno.test("introspection answers follow writes made through the database", async () => {
  const path = `${Deno.makeTempDirSync()}/s.db`;
  Connection.open(path, { mode: "rwc" }).close();
  const db = new Database(undefined, { path });
  try {
    assert.deepEqual(await db.table_names(), []);
    await db.execute_write("create table a (id integer primary key, x text)");
    assert.deepEqual(await db.table_names(), ["a"]);
    assert.deepEqual(await db.table_columns("a"), ["id", "x"]);
    await db.execute_write("alter table a add column y integer");
    assert.deepEqual(await db.table_columns("a"), ["id", "x", "y"]);
  } finally {
    db.close();
  }
});

Deno.test("a schema change by another process is seen once schema_version is rechecked", async () => {
  const path = `${Deno.makeTempDirSync()}/s.db`;
  Connection.open(path, { mode: "rwc" }).close();
  const db = new Database(undefined, { path });
  const other = Connection.open(path, { mode: "rw" });
  try {
    assert.deepEqual(await db.table_names(), []);
    other.exec("create table made_elsewhere (id integer)");
    await new Promise((resolve) => setTimeout(resolve, SCHEMA_RECHECK_MS + 50));
    assert.deepEqual(await db.table_names(), ["made_elsewhere"]);
  } finally {
    other.close();
    db.close();
  }
});
