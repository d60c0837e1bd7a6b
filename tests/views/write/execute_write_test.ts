import assert from "node:assert/strict";
import { auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";
import type { Service } from "../../../src/service.ts";

const grant = {
  metadata: {
    databases: {
      shop: { permissions: { "execute-write-sql": { id: "writer" } } },
    },
  },
};

async function withBatchWriter(fn: (svc: Service) => Promise<void>): Promise<void> {
  await withWriter(async (svc) => {
    await post(svc, "/shop/-/execute-write", {
      sql: "create table notes (id integer primary key, body text not null unique)",
    });
    await fn(svc);
  }, grant);
}

Deno.test("execute-write: several statements, split by SQLite, each with its row count", async () => {
  await withBatchWriter(async (svc) => {
    const sql = "insert into notes (body) values ('a;b');\n" +
      "-- a comment; with a semicolon\n" +
      "insert into notes (body) values (:second), ('c');\n" +
      "create trigger notes_upper after insert on notes begin " +
      "update notes set body = upper(body) where id = new.id; end;\n" +
      "update notes set body = body || '!' where body != 'a;b'";
    const response = await post(svc, "/shop/-/execute-write", { sql, params: { second: "b" } });
    assert.equal(response.status, 200, response.text);
    const body = response.json();
    assert.deepEqual(body.statements.map((s: { rowcount: number }) => s.rowcount), [1, 2, 0, 2]);
    assert.equal(body.statements[0].sql, "insert into notes (body) values ('a;b');");
    assert.match(body.statements[2].sql, /^create trigger .* end;$/s);
    assert.equal(body.rowcount, 5);
    assert.equal(body.last_row_id, 3);
    assert.equal(body.message, "4 statements executed, 5 rows affected");
    assert.deepEqual(fileRows(svc, "select body from notes order by id").map((r) => r.body), [
      "a;b",
      "b!",
      "c!",
    ]);
  });
});

Deno.test("execute-write: a failing statement rolls back the batch and is named", async () => {
  await withBatchWriter(async (svc) => {
    const sql = "insert into notes (body) values ('kept?');\n" +
      "create table extra (x);\n" +
      "insert into notes (body) values ('kept?')";
    const response = await post(svc, "/shop/-/execute-write", { sql });
    assert.equal(response.status, 400);
    assert.deepEqual(errorsOf(response), [
      "Statement 3 failed: UNIQUE constraint failed: notes.body " +
      "(in: insert into notes (body) values ('kept?'))",
    ]);
    assert.deepEqual(fileRows(svc, "select * from notes"), []);
    assert.deepEqual(fileRows(svc, "select name from sqlite_master where name = 'extra'"), []);
    // A statement SQLite cannot compile is named the same way.
    const bad = await post(svc, "/shop/-/execute-write", {
      sql: "insert into notes (body) values ('x'); insert into nowhere values (1)",
    });
    assert.equal(bad.status, 400);
    assert.match(errorsOf(bad)[0], /^Statement 2 failed: no such table: nowhere/);
    assert.deepEqual(fileRows(svc, "select * from notes"), []);
  });
});

Deno.test("execute-write: refuses transaction control, read-only batches and bad bodies", async () => {
  await withBatchWriter(async (svc) => {
    const cases: [unknown, RegExp][] = [
      [
        { sql: "insert into notes (body) values ('x'); commit" },
        /^Statement 2 failed: transaction/,
      ],
      [{ sql: "vacuum" }, /^Statement 1 failed: transaction control/],
      [{ sql: "select * from notes" }, /None of these statements writes/],
      [{ sql: " -- nothing\n;" }, /No SQL to run/],
      [{ sql: 3 }, /"sql" must be a string/],
      [{ sql: "delete from notes", params: [1] }, /"params" must be an object/],
    ];
    for (const [body, message] of cases) {
      const response = await post(svc, "/shop/-/execute-write", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(errorsOf(response)[0], message);
    }
    assert.deepEqual(fileRows(svc, "select * from notes"), []);
  });
});

Deno.test("execute-write: denied without execute-write-sql, to anonymous and to restricted tokens", async () => {
  await withBatchWriter(async (svc) => {
    const sql = { sql: "insert into notes (body) values ('x')" };
    const anonymous = await post(svc, "/shop/-/execute-write", sql, {});
    assert.equal(anonymous.status, 403);
    const other = await post(svc, "/shop/-/execute-write", sql, auth(svc, "someone"));
    assert.equal(other.status, 403);
    assert.deepEqual(errorsOf(other), ["Permission denied: need execute-write-sql"]);
    const restricted = await post(
      svc,
      "/shop/-/execute-write",
      sql,
      auth(svc, "writer", { restrict_all: ["insert-row"] }),
    );
    assert.equal(restricted.status, 403);
    const allowed = await post(
      svc,
      "/shop/-/execute-write",
      sql,
      auth(svc, "writer", { restrict_database: { shop: ["execute-write-sql"] } }),
    );
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(fileRows(svc, "select count(*) as n from notes")[0].n, 1);
    const get = await svc.client.get("/shop/-/execute-write");
    assert.equal(get.status, 405);
  });
});

Deno.test("execute-write: sends an execute-write event with the SQL", async () => {
  await withBatchWriter(async (svc) => {
    const events: { name: string; properties: Record<string, unknown> }[] = [];
    svc.pm.register({
      track_event: (
        { event }: { event: { name: string; properties(): Record<string, unknown> } },
      ) => {
        events.push({ name: event.name, properties: event.properties() });
      },
    }, { name: "event-recorder" });
    const sql = "insert into notes (body) values ('e')";
    assert.equal((await post(svc, "/shop/-/execute-write", { sql })).status, 200);
    assert.deepEqual(events, [{
      name: "execute-write",
      properties: { database: "shop", query_name: null, rowcount: 1, sql },
    }]);
  });
});

Deno.test("execute-write: a dry run reports each statement and keeps nothing", async () => {
  await withBatchWriter(async (svc) => {
    const sql = "insert into notes (body) values ('a'), ('b'); delete from notes where body = 'a'";
    const response = await post(svc, "/shop/-/execute-write", { sql, dry_run: true });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), {
      ok: true,
      dry_run: true,
      message: "2 statements would run, changing 3 rows",
      rowcount: 3,
      statements: [
        { sql: "insert into notes (body) values ('a'), ('b');", rowcount: 2 },
        { sql: "delete from notes where body = 'a'", rowcount: 1 },
      ],
    });
    assert.deepEqual(fileRows(svc, "select * from notes"), []);
    // The write connection is fine afterwards.
    assert.equal((await post(svc, "/shop/-/execute-write", { sql })).status, 200);
    assert.deepEqual(fileRows(svc, "select body from notes"), [{ body: "b" }]);
  });
});
