import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import {
  SCHEMA_CACHE_ENTRIES,
  SCHEMA_CACHE_KEY_CHARS,
  SCHEMA_RECHECK_MS,
  SchemaCache,
} from "../../src/db/schema_cache.ts";

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

Deno.test("made-up names asked about cannot grow the introspection cache without bound", async () => {
  let runs = 0;
  const cache = new SchemaCache(() => {
    runs++;
    return Promise.resolve([]);
  }, true);
  // What /db/<name> for 10,000 different long names asks.
  for (let i = 0; i < 10_000; i++) {
    await cache.get(`table?${String(i).padStart(500, "x")}`, () => Promise.resolve(false));
  }
  const { entries, keyChars } = cache.size;
  assert.ok(entries <= SCHEMA_CACHE_ENTRIES, `${entries} entries`);
  assert.ok(keyChars <= SCHEMA_CACHE_KEY_CHARS, `${keyChars} key characters`);
  assert.ok(entries > 1000, "recent answers are kept");
  // The most recent answer is still cached; the first one was forgotten and is computed again.
  let computed = 0;
  const compute = () => (computed++, Promise.resolve(true));
  await cache.get(`table?${String(9_999).padStart(500, "x")}`, compute);
  assert.equal(computed, 0);
  await cache.get(`table?${String(0).padStart(500, "x")}`, compute);
  assert.equal(computed, 1);
  assert.equal(runs, 0);
});

Deno.test("an answer used often stays cached while made-up names come and go", async () => {
  const cache = new SchemaCache(() => Promise.resolve([]), true);
  let computed = 0;
  for (let i = 0; i < 3 * SCHEMA_CACHE_ENTRIES; i++) {
    await cache.get("tables", () => (computed++, Promise.resolve(["a"])));
    await cache.get(`table?nope${i}`, () => Promise.resolve(false));
  }
  assert.equal(computed, 1);
});
