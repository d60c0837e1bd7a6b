/**
 * The write API keeps its compiled INSERT, the type check and the read-back of rows on the write
 * connection from one request to the next (`Statements`, `Connection.borrow`): a schema change
 * in between, made through the API or by another connection, must be seen by the next write as
 * if nothing had been kept.
 */
import assert from "node:assert/strict";
import type { Service } from "../../../src/service.ts";
import { Connection } from "../../../src/sqlite/mod.ts";
import { errorsOf, post, withWriter } from "./_write_helpers.ts";

/** Changes the file's schema through a connection of its own, as another process would. */
function changeOutside(svc: Service, sql: string): void {
  const conn = Connection.open(svc.get_database("shop").path!);
  try {
    conn.exec(sql);
  } finally {
    conn.close();
  }
}

Deno.test("rows read back after a write show columns added since the last write", async () => {
  await withWriter(async (svc) => {
    const first = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "one" }],
      return: true,
    });
    assert.deepEqual(first.json().rows, [{ rowid: 4, message: "one", level: null }]);

    // Through the API: the same request adds the column and reads the row back.
    const altered = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "two", source: "cron" }],
      alter: true,
      return: true,
    });
    assert.equal(altered.status, 201, altered.text);
    assert.deepEqual(altered.json().rows, [
      { rowid: 5, message: "two", level: null, source: "cron" },
    ]);

    // By another connection, with a default the next row takes.
    changeOutside(svc, "alter table log add column seen integer default 7");
    const after = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "three" }],
      return: true,
    });
    assert.equal(after.status, 201, after.text);
    assert.deepEqual(after.json().rows, [
      { rowid: 6, message: "three", level: null, source: null, seen: 7 },
    ]);
  });
});

Deno.test("a table made again with other types is checked by its new types", async () => {
  await withWriter(async (svc) => {
    const text = await post(svc, "/shop/log/-/insert", { rows: [{ message: "abc", level: "x" }] });
    assert.equal(text.status, 201, text.text);

    changeOutside(svc, "drop table log; create table log (message integer, level text not null)");
    const refused = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "abc", level: "x" }],
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(errorsOf(refused), ['Column message is INTEGER: "abc" is not a number']);
    const missing = await post(svc, "/shop/log/-/insert", { rows: [{ message: 5 }] });
    assert.equal(missing.status, 400);
    assert.deepEqual(errorsOf(missing), ["NOT NULL constraint failed: log.level"]);
    const fine = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: 5, level: "x" }],
      return: true,
    });
    assert.equal(fine.status, 201, fine.text);
    assert.deepEqual(fine.json().rows, [{ rowid: 1, message: 5, level: "x" }]);
  });
});

Deno.test("a table renamed away and another made under its name gets the new table's rows", async () => {
  await withWriter(async (svc) => {
    const first = await post(svc, "/shop/log/-/insert", { rows: [{ message: "a" }], return: true });
    assert.equal(first.status, 201, first.text);
    changeOutside(svc, "alter table log rename to old_log; create table log (note text)");
    // The catalog notices another process's change within a second (SCHEMA_RECHECK_MS).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const wrong = await post(svc, "/shop/log/-/insert", { rows: [{ message: "b" }] });
    assert.equal(wrong.status, 400);
    assert.deepEqual(errorsOf(wrong), ["Row 0 has invalid columns: message"]);
    const right = await post(svc, "/shop/log/-/insert", { rows: [{ note: "c" }], return: true });
    assert.equal(right.status, 201, right.text);
    assert.deepEqual(right.json().rows, [{ rowid: 1, note: "c" }]);
    // The old table kept its row and got nothing more.
    const old = await svc.client.get("/shop/old_log.json?_shape=array");
    assert.deepEqual(old.json().map((row: { message: string }) => row.message).slice(-1), ["a"]);
    assert.equal(old.json().length, 4);
  });
});
