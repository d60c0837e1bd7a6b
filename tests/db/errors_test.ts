/** Every SQL statement that fails in `Database` rejects with the data layer's `DatabaseError`. */
import assert from "node:assert/strict";
import { QueryError, QueryInterrupted } from "../../src/db/errors.ts";
import { SqliteError } from "../../src/sqlite/errors.ts";
import { withItemsDb } from "./helpers.ts";

const failsWith = (sql: string, message: string) => (error: unknown) => {
  assert.ok(error instanceof QueryError, String(error));
  assert.ok(error.cause instanceof SqliteError);
  assert.equal(error.message, message);
  assert.equal(error.sql, sql);
  assert.equal(error.status, 500);
  return true;
};

Deno.test("reads and writes reject with QueryError holding the SQL", async () => {
  await withItemsDb(async (db) => {
    const read = "select nope from items";
    await assert.rejects(
      db.execute(read, null, { log_sql_errors: false }),
      failsWith(read, "no such column: nope"),
    );
    await db.execute_write("insert into items (name) values ('a')");
    const insert = "insert into items (name) values ('a')";
    await assert.rejects(
      db.execute_write(insert),
      failsWith(insert, "UNIQUE constraint failed: items.name"),
    );
    const many = "insert into items (name) values (?)";
    await assert.rejects(
      db.execute_write_many(many, [["b"], ["b"]]),
      failsWith(many, "UNIQUE constraint failed: items.name"),
    );
    await assert.rejects(
      db.execute_write_script("update nowhere set x = 1"),
      failsWith("update nowhere set x = 1", "no such table: nowhere"),
    );
  });
});

Deno.test("an overrun rejects with QueryInterrupted, a 400 titled SQL Interrupted", async () => {
  await withItemsDb(async (db) => {
    const endless = "with recursive c(x) as (select 1 union all select x + 1 from c) " +
      "select count(*) from c";
    await assert.rejects(db.execute(endless, null, { custom_time_limit: 20 }), (error: unknown) => {
      assert.ok(error instanceof QueryInterrupted);
      assert.deepEqual([error.status, error.title], [400, "SQL Interrupted"]);
      assert.match(error.message, /sql_time_limit_ms/);
      return true;
    });
  });
});
