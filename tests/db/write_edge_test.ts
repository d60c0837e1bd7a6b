import assert from "node:assert/strict";
import { QueryInterrupted } from "../../src/db/errors.ts";
import { itemNames as names, withItemsDb } from "./helpers.ts";

Deno.test("execute_write_fn rejects with fn's own error even if it closed the connection", async () => {
  await withItemsDb(async (db) => {
    await assert.rejects(
      db.execute_write_fn((conn) => {
        conn.close();
        throw new Error("the original error");
      }),
      /the original error/,
    );
    // The closed write connection is replaced by a new one.
    await db.execute_write("insert into items (name) values ('after')");
    assert.deepEqual(await names(db), ["after"]);
  });
});

Deno.test("a script with its own BEGIN that fails midway leaves nothing behind", async () => {
  await withItemsDb(async (db) => {
    await assert.rejects(
      db.execute_write_script(
        "begin; insert into items (name) values ('half'); insert into nope values (1); commit;",
      ),
      /no such table: nope/,
    );
    // Before the fix the script's transaction stayed open: "database table is locked" here.
    await db.execute_write("insert into items (name) values ('next')");
    assert.deepEqual(await names(db), ["next"]);
  });
});

Deno.test("a script failing on its third statement changes nothing", async () => {
  await withItemsDb(async (db) => {
    await assert.rejects(
      db.execute_write_script(
        "insert into items (name) values ('a'); insert into items (name) values ('b');" +
          "insert into items (name) values ('a');",
      ),
      /UNIQUE constraint failed/,
    );
    assert.deepEqual(await names(db), []);
  });
});

Deno.test("block: false failures are logged, never thrown", async () => {
  await withItemsDb(async (db) => {
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const id = await db.execute_write("insert into nope values (1)", null, { block: false });
      assert.equal(typeof id, "string");
      await db.execute_write("insert into items (name) values ('ok')");
    } finally {
      console.error = original;
    }
    assert.equal(logged.length, 1);
    assert.match(String(logged[0][0]), /Write task .* failed/);
    assert.deepEqual(await names(db), ["ok"]);
  });
});

Deno.test("a write commits while a reader holds a long read on the file", async () => {
  await withItemsDb(async (db) => {
    await db.execute_write_script(
      "insert into items (name) with recursive c(x) as (select 1 union all select x + 1 " +
        "from c where x < 2000) select 'n' || x from c;",
    );
    // A cross join that keeps a read transaction (a SHARED lock) open until its time limit.
    const longRead = db.execute(
      "select count(*) from items a, items b, items c",
      null,
      { custom_time_limit: 300, log_sql_errors: false },
    ).catch((error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const write = await db.execute_write("insert into items (name) values ('during')");
    assert.equal(write.rowcount, 1);
    assert.ok((await longRead) instanceof QueryInterrupted);
    assert.equal((await db.execute("select count(*) from items")).single_value(), 2001);
  }, { sql_time_limit_ms: 5000 });
});

Deno.test("execute_fn gets a fresh connection after a function closed it", async () => {
  await withItemsDb(async (db) => {
    await db.execute_fn((conn) => conn.close());
    assert.equal(await db.execute_fn((conn) => conn.query("select 7").rows[0][0]), 7);
  });
});
