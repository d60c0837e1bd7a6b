import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { makeDbFile, tempDir, testHost } from "./helpers.ts";

const ODD = `
create table "with space" ("a col" integer primary key, "it's" text, "say ""hi""" text);
create table "br[ack]ets.and.dots" (id integer primary key, "x.y" text);
create table wr (k1 text, k2 integer, v text, primary key (k2, k1)) without rowid;
create table alias (id integer primary key, name text);
create table plain (name text);
create table child (id integer primary key, a integer, b text,
  foreign key (a, b) references wr (k2, k1),
  foreign key (b, a) references wr,
  foreign key (id) references "with space" ("a col"));
create view v1 as select "a col", "it's" from "with space";
create view v2 as select * from v1 where "a col" > 0;
create virtual table spots using rtree(id, minx, maxx);
`;

async function withOdd(fn: (db: Database) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const db = new Database(host, { path: makeDbFile(dir, "odd.db", ODD), is_mutable: false });
  try {
    await fn(db);
  } finally {
    db.close();
    host.close();
    cleanup();
  }
}

Deno.test("quoted names with spaces, quotes, brackets and dots", async () => {
  await withOdd(async (db) => {
    assert.ok(await db.table_exists("with space"));
    assert.ok(await db.table_exists("br[ack]ets.and.dots"));
    assert.deepEqual(await db.table_columns("with space"), ["a col", "it's", 'say "hi"']);
    assert.deepEqual(await db.primary_keys("with space"), ["a col"]);
    assert.deepEqual(await db.table_columns("br[ack]ets.and.dots"), ["id", "x.y"]);
    assert.match((await db.get_table_definition("br[ack]ets.and.dots"))!, /"x\.y" text/);
  });
});

Deno.test("WITHOUT ROWID, INTEGER PRIMARY KEY alias and rowid tables", async () => {
  await withOdd(async (db) => {
    assert.deepEqual(await db.primary_keys("wr"), ["k2", "k1"]);
    assert.deepEqual(await db.primary_keys("alias"), ["id"]);
    assert.deepEqual(await db.primary_keys("plain"), []);
    const details = await db.table_column_details("wr");
    assert.deepEqual(details.map((row) => [row["name"], row["is_pk"]]), [
      ["k1", 1],
      ["k2", 1],
      ["v", 0],
    ]);
  });
});

Deno.test("compound foreign keys, with and without target columns", async () => {
  await withOdd(async (db) => {
    assert.deepEqual(await db.foreign_keys_for_table("child"), [
      { column: "id", other_table: "with space", other_column: "a col" },
      // `references wr` pairs (b, a) with wr's key columns in key order: (k2, k1).
      { column: "b", other_table: "wr", other_column: "k2" },
      { column: "a", other_table: "wr", other_column: "k1" },
      { column: "a", other_table: "wr", other_column: "k2" },
      { column: "b", other_table: "wr", other_column: "k1" },
    ]);
    const all = await db.get_all_foreign_keys();
    assert.equal(all["wr"].incoming.length, 4);
    assert.equal(all["with space"].incoming[0].other_table, "child");
  });
});

Deno.test("views over views and a virtual table that is not FTS", async () => {
  await withOdd(async (db) => {
    assert.deepEqual(await db.view_names(), ["v1", "v2"]);
    assert.deepEqual(await db.table_columns("v2"), ["a col", "it's"]);
    assert.equal(
      await db.get_view_definition("v2"),
      'CREATE VIEW v2 as select * from v1 where "a col" > 0;',
    );
    assert.equal(await db.fts_table("spots"), null);
    assert.deepEqual(await db.table_columns("spots"), ["id", "minx", "maxx"]);
    assert.ok(!(await db.hidden_table_names()).includes("spots"));
  });
});

Deno.test("attached databases through crossdb", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const other = new Database(host, { path: makeDbFile(dir, "other.db", "create table o (x);") });
  const main: Database = new Database(host, {
    path: makeDbFile(dir, "main.db", "create table m (y);"),
    crossdb_attach: (): Database[] => [main, other],
  });
  try {
    const attached = await main.attached_databases();
    assert.deepEqual(attached.map((row) => [row["seq"], row["name"]]), [[2, "other"]]);
    assert.ok(String(attached[0]["file"]).endsWith("other.db"));
    assert.equal((await main.execute("select count(*) from other.o")).single_value(), 0);
  } finally {
    main.close();
    other.close();
    host.close();
    cleanup();
  }
});
