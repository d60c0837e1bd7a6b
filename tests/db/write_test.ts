import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { DatabaseNotMutable } from "../../src/db/errors.ts";
import { itemNames as names, makeDbFile, tempDir, testHost, withItemsDb } from "./helpers.ts";

Deno.test("execute_write returns rowcount and lastrowid; readers see the change", async () => {
  await withItemsDb(async (db) => {
    const cursor = await db.execute_write("insert into items (name) values (?)", ["apple"]);
    assert.equal(cursor.rowcount, 1);
    assert.equal(cursor.lastrowid, 1);
    const update = await db.execute_write("update items set seq = :s", { s: 5 });
    assert.equal(update.rowcount, 1);
    assert.deepEqual(await names(db), ["apple"]);
  });
});

Deno.test("execute_write_many and execute_write_script", async () => {
  await withItemsDb(async (db) => {
    const many = await db.execute_write_many("insert into items (name) values (?)", [
      ["a"],
      ["b"],
      ["c"],
    ]);
    assert.equal(many.rowcount, 3);
    assert.equal(many.lastrowid, 3);
    await db.execute_write_script(
      "insert into items (name) values ('d'); update items set seq = id * 10;",
    );
    const rows = await db.execute("select name, seq from items order by id");
    assert.deepEqual(rows.dicts().at(-1), { name: "d", seq: 40 });
    assert.equal(rows.length, 4);
  });
});

Deno.test("a failing write leaves the database unchanged", async () => {
  await withItemsDb(async (db) => {
    await db.execute_write("insert into items (name) values ('x')");
    await assert.rejects(
      db.execute_write_many("insert into items (name) values (?)", [["y"], ["x"]]),
      /UNIQUE constraint failed/,
    );
    await assert.rejects(
      db.execute_write_script(
        "insert into items (name) values ('z'); insert into nope values (1);",
      ),
      /no such table: nope/,
    );
    await assert.rejects(
      db.execute_write_fn((conn) => {
        conn.execute("insert into items (name) values ('w')");
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    assert.deepEqual(await names(db), ["x"]);
    // Later writes still work.
    await db.execute_write("insert into items (name) values ('after')");
    assert.deepEqual(await names(db), ["x", "after"]);
  });
});

Deno.test("execute_write_fn returns the function's value once committed", async () => {
  await withItemsDb(async (db) => {
    const id = await db.execute_write_fn((conn) => {
      const cursor = conn.execute("insert into items (name) values ('fn')");
      conn.commit();
      return cursor.lastrowid;
    });
    assert.equal(id, 1);
    assert.deepEqual(await names(db), ["fn"]);
  });
});

Deno.test("an uncommitted write function makes the next write fail with 'database table is locked'", async () => {
  await withItemsDb(async (db) => {
    await db.execute_write_fn((conn) => {
      conn.execute("insert into items (name) values ('never committed')");
    });
    await assert.rejects(
      db.execute_write("insert into items (name) values ('next')"),
      (error: Error) => error.message === "database table is locked",
    );
    await db.execute_write("insert into items (name) values ('later')");
    assert.deepEqual(await names(db), ["later"]);
  });
});

Deno.test("block: false returns a task id and runs the write later", async () => {
  await withItemsDb(async (db) => {
    const taskId = await db.execute_write("insert into items (name) values ('queued')", null, {
      block: false,
    });
    assert.match(taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const failing = await db.execute_write_fn(() => {
      throw new Error("swallowed");
    }, { block: false });
    assert.equal(typeof failing, "string");
    assert.notEqual(failing, taskId);
    // A blocking write queued after them runs after them.
    await db.execute_write("insert into items (name) values ('blocking')");
    assert.deepEqual(await names(db), ["queued", "blocking"]);
  });
});

Deno.test("100 concurrent writes run in arrival order", async () => {
  await withItemsDb(async (db) => {
    const writes = [];
    for (let i = 0; i < 100; i++) {
      writes.push(
        i % 2 === 0
          ? db.execute_write("insert into items (name, seq) values (?, ?)", [`w${i}`, i])
          : db.execute_write_fn((conn) => {
            conn.execute("insert into items (name, seq) values (?, ?)", [`w${i}`, i]);
            conn.commit();
          }),
      );
    }
    await Promise.all(writes);
    const rows = await db.execute("select seq from items order by id");
    assert.deepEqual(rows.rows.map((r) => r[0]), Array.from({ length: 100 }, (_, i) => i));
  });
});

Deno.test("immutable databases refuse writes", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const db = new Database(host, {
    path: makeDbFile(dir, "ro.db", "create table items (id integer primary key, name text)"),
    is_mutable: false,
  });
  try {
    await assert.rejects(
      db.execute_write("insert into items (name) values ('x')"),
      DatabaseNotMutable,
    );
    assert.equal((await db.execute("select count(*) from items")).single_value(), 0);
  } finally {
    db.close();
    host.close();
    cleanup();
  }
});

Deno.test("private memory databases read what they wrote (main thread)", async () => {
  const host = testHost();
  const db = new Database(host, { is_memory: true });
  try {
    assert.equal(db.name, "_memory");
    await db.execute_write_script(
      "create table items (id integer primary key, name text); insert into items (name) values ('m');",
    );
    assert.deepEqual(await names(db), ["m"]);
  } finally {
    db.close();
    host.close();
  }
});
