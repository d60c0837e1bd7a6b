/**
 * Introspection of every table at once (src/db/introspect_bulk.ts): the same answers as the
 * per-table queries, a listing of many tables asks a handful of queries instead of four a table,
 * and introspection never waits for a busy read worker (issue 42 item 4: a database page of a
 * 2 GB file with 100 tables took 260–410 ms cold on a loaded machine, asking 408 queries).
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Database } from "../../src/db/database.ts";
import { Service } from "../../src/service.ts";
import * as introspect from "../../src/db/introspect.ts";
import { allOutgoingForeignKeys, allTableShapes } from "../../src/db/introspect_bulk.ts";
import { makeDbFile, tempDir, testHost } from "./helpers.ts";

const SCHEMA = `
create table "with space" ("a col" integer primary key, "it's" text);
create table wr (k1 text, k2 integer, v text, primary key (k2, k1)) without rowid;
create table plain (name text, made text generated always as (upper(name)) virtual);
create table child (id integer primary key, a integer, b text,
  foreign key (a, b) references wr (k2, k1),
  foreign key (b, a) references wr,
  foreign key (id) references "with space" ("a col"),
  foreign key (a) references missing (x));
create view v1 as select "a col" from "with space";
create virtual table spots using rtree(id, minx, maxx);
`;

Deno.test("every table's columns, keys and foreign keys read at once equal the per-table answers", async () => {
  const { dir, cleanup } = tempDir();
  const conn = Connection.open(makeDbFile(dir, "bulk.db", SCHEMA), { mode: "ro" });
  try {
    const run = introspect.connectionRunner(conn);
    const tables = await introspect.objectNames(run, "table");
    const shapes = await allTableShapes(run);
    const foreignKeys = await allOutgoingForeignKeys(run);
    assert.deepEqual([...shapes.keys()].sort(), [...tables].sort());
    for (const table of tables) {
      const details = await introspect.columnDetails(run, table);
      assert.deepEqual(
        shapes.get(table)!.details.map((row) => [...row]),
        details.map((r) => [...r]),
      );
      assert.equal(shapes.get(table)!.details[1]?.["name"], details[1]?.["name"]);
      assert.deepEqual(shapes.get(table)!.primary_keys, await introspect.primaryKeys(run, table));
      assert.deepEqual(
        foreignKeys.get(table) ?? [],
        await introspect.outgoingForeignKeys(run, table),
        table,
      );
    }
    assert.deepEqual(shapes.get("wr")!.primary_keys, ["k2", "k1"]);
  } finally {
    conn.close();
    cleanup();
  }
});

Deno.test("a database page of 60 tables asks a handful of introspection queries, not four a table", async () => {
  const { dir, cleanup } = tempDir();
  const tables = Array.from({ length: 60 }, (_, i) => `t${i}`);
  const path = makeDbFile(
    dir,
    "many.db",
    tables.map((t, i) =>
      `create table ${t} (id integer primary key, name text${
        i > 0 ? `, up integer references t${i - 1}(id)` : ""
      });`
    ).join("\n"),
  );
  try {
    await using svc = new Service({ immutables: [path], settings: { trace_debug: true } });
    const body = (await svc.client.get("/many.json?_trace=1")).json();
    const queries = (body._trace.traces as { database: string; sql?: string }[])
      // The row counts are a query a table by nature (a listing's own budget bounds them).
      .filter((t) => t.database === "many" && !t.sql?.startsWith("select count(*)"));
    assert.ok(
      queries.length < 20,
      `${queries.length} queries:\n${queries.map((q) => q.sql).join("\n")}`,
    );
    // The answers are those of the per-table queries.
    const t5 = body.tables.find((t: { name: string }) => t.name === "t5");
    assert.deepEqual(t5.columns, ["id", "name", "up"]);
    assert.deepEqual(t5.primary_keys, ["id"]);
    assert.deepEqual(t5.foreign_keys, {
      incoming: [{ other_table: "t6", column: "id", other_column: "up" }],
      outgoing: [{ other_table: "t4", column: "up", other_column: "id" }],
    });
  } finally {
    cleanup();
  }
});

Deno.test("introspection answers while the only read worker is busy with a long query", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost({
    settings: { num_sql_threads: 1, spare_sql_threads: 0, sql_time_limit_ms: 20_000 },
  });
  const path = makeDbFile(dir, "busy.db", "create table t (id integer primary key, name text);");
  const db = new Database(host, { path, is_mutable: false });
  try {
    // A query that holds the worker for a second or more.
    let longDone = false;
    const long = db.execute(
      `with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000000)
       select count(*) from c`,
      [],
      { custom_time_limit: 3_000 },
    ).catch(() => {}).finally(() => longDone = true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await db.table_columns("t"), ["id", "name"]);
    assert.deepEqual(await db.primary_keys("t"), ["id"]);
    // Answered on this thread: not after the long query.
    assert.equal(longDone, false);
    await long;
  } finally {
    db.close();
    host.close();
    cleanup();
  }
});
