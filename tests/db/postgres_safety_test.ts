/**
 * What keeps a PostgreSQL database safe from its visitors, against a real throw-away cluster:
 * runaway queries stop at their time limit, a client that goes away cancels its query on the
 * server, writes in custom SQL are refused (the `SELECT` check, the read-only transaction, one
 * statement per call), writes go through only for a role that may write, and the password is
 * in no output. Ignored with a message when PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { PostgresDatabase } from "../../src/db/postgres_database.ts";
import { parsePgTarget } from "../../src/db/postgres_url.ts";
import { QueryInterrupted } from "../../src/db/errors.ts";
import { standaloneHost } from "../../src/db/host.ts";
import { pgAvailable, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";
import { run } from "../cli/run_main.ts";

const HAVE_PG = pgAvailable("PostgreSQL safety tests");
const PASSWORD = "pa55-w0rd-never-shown";

const SCHEMA = `
create table items (id int primary key, name text);
insert into items values (1, 'apple'), (2, 'pear');
create sequence counter;
create role reader login password '${PASSWORD}';
grant select on items to reader;
create role writer login password '${PASSWORD}';
grant select, insert, update, delete on items to writer;
grant usage on sequence counter to writer;
create table locked (id int primary key);
grant select on locked to writer;
`;

const METADATA = {
  databases: {
    app: {
      queries: {
        add_item: { sql: "insert into items values (:id, :name)", write: true },
      },
    },
  },
};

/** Rows of pg_stat_activity running `text` (other than this probe). */
async function running(psql: (sql: string) => Promise<string>, text: string): Promise<number> {
  const out = await psql(
    `select count(*) from pg_stat_activity where state = 'active' and query like '%${text}%' ` +
      `and pid != pg_backend_pid()`,
  );
  return Number(out.trim());
}

/** Visitors' SQL: limited, cancelled and kept read-only (a read-only role's service). */
async function readerSteps(t: Deno.TestContext, cluster: PgCluster): Promise<void> {
  const readerUrl = cluster.url("app", "reader", PASSWORD);
  const svc = new Service({
    postgres: [readerUrl],
    metadata: METADATA,
    settings: { sql_time_limit_ms: 500 },
  });
  try {
    await svc.invoke_startup();
    const db = svc.get_database("app");

    await t.step("a runaway query stops at its time limit with the usual error", async () => {
      const started = performance.now();
      const response = await svc.client.get(
        "/app/-/query.json?sql=" + encodeURIComponent("select pg_sleep(10)"),
      );
      const ms = performance.now() - started;
      assert.equal(response.status, 400);
      assert.match(response.json<{ error: string }>().error, /SQL query took too long/);
      assert.ok(ms < 3000, `took ${ms} ms`);
      assert.equal(await running((sql) => cluster.psql(sql, "app"), "pg_sleep(10)"), 0);
    });

    await t.step("raising statement_timeout from inside the query does not help", async () => {
      const sql = "select set_config('statement_timeout', '0', true), pg_sleep(5)";
      const started = performance.now();
      await assert.rejects(db.execute(sql), QueryInterrupted);
      assert.ok(performance.now() - started < 3000);
    });

    await t.step("a client that goes away cancels its query on the server", async () => {
      // A limit far away, so that only the client's going away can stop it.
      const patient = new PostgresDatabase(
        standaloneHost({ settings: { sql_time_limit_ms: 60000 } }),
        parsePgTarget(readerUrl),
      );
      const controller = new AbortController();
      const query = patient.execute("select pg_sleep(30) as sleepy_probe", null, {
        signal: controller.signal,
      });
      query.catch(() => {});
      const psql = (sql: string) => cluster.psql(sql, "app");
      for (let i = 0; i < 50 && await running(psql, "sleepy_probe") === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await running(psql, "sleepy_probe"), 1);
      controller.abort();
      await assert.rejects(query, QueryInterrupted);
      for (let i = 0; i < 50 && await running(psql, "sleepy_probe") > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await running(psql, "sleepy_probe"), 0);
      patient.close();
    });

    await t.step("an export closed early (the client went away) ends on the server", async () => {
      const patient = new PostgresDatabase(
        standaloneHost({ settings: { sql_time_limit_ms: 60000 } }),
        parsePgTarget(readerUrl),
      );
      try {
        // About 100 s of work in all, its first rows at once.
        const cursor = patient.exportCursor(
          "select g, (select count(*) from generate_series(1, 2000)) as stream_probe " +
            "from generate_series(1, 1000000) g",
          null,
        )!;
        const first = await cursor.next({ text: null, rows: 1000 });
        assert.equal(first.rows().length, 1000);
        const psql = (text: string) => cluster.psql(text, "app");
        assert.equal(await running(psql, "stream_probe"), 1);
        await cursor.close();
        assert.equal(await running(psql, "stream_probe"), 0);
      } finally {
        patient.close();
      }
    });

    await t.step("a write statement in custom SQL is refused", async () => {
      for (const sql of ["delete from items", "update items set name = 'x'"]) {
        const response = await svc.client.get(
          `/app/-/query.json?sql=${encodeURIComponent(sql)}`,
        );
        assert.equal(response.status, 400);
        assert.match(response.text, /Statement must be a SELECT/);
      }
    });

    await t.step("the read-only transaction refuses what a SELECT can still write", async () => {
      // A role that may write, to show the transaction (not the role) refuses.
      const writer = new PostgresDatabase(
        standaloneHost(),
        parsePgTarget(cluster.url("app", "writer", PASSWORD)),
      );
      try {
        await assert.rejects(
          writer.execute("with gone as (delete from items returning *) select * from gone"),
          /read-only transaction/,
        );
        await assert.rejects(
          writer.execute("select nextval('counter')"),
          /read-only transaction/,
        );
        // One statement per call: the second one never runs.
        await assert.rejects(writer.execute("select 1; delete from items"));
        assert.equal((await writer.execute("select count(*) from items")).single_value(), 2);
      } finally {
        writer.close();
      }
    });

    await t.step("a read-only role's write is refused with the server's reason", async () => {
      const response = await svc.client.post("/app/add_item", {
        body: "id=3&name=plum",
        headers: {
          "Accept": "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
        },
      });
      const body = response.json<{ ok: boolean; message: string }>();
      assert.equal(body.ok, false);
      assert.match(body.message, /permission denied/);
    });

    await t.step("the password is in no page, JSON or error", async () => {
      const paths = [
        "/",
        "/-/databases.json",
        "/app.json",
        "/app",
        "/-/settings.json",
        "/app/-/query.json?sql=select+nonsense",
        "/app/-/query.json?sql=" + encodeURIComponent("select pg_sleep(10)"),
      ];
      for (const path of paths) {
        const response = await svc.client.get(path);
        assert.ok(!response.text.includes(PASSWORD), path);
      }
    });
  } finally {
    await svc.close();
  }
}

/** A role that may write: canned writes, the write API; the CLI never prints passwords. */
async function writerSteps(t: Deno.TestContext, cluster: PgCluster): Promise<void> {
  const grants = Object.fromEntries(
    ["insert-row", "update-row", "delete-row"].map((action) => [action, { id: "ann" }]),
  );
  const svc = new Service({
    postgres: [cluster.url("app", "writer", PASSWORD)],
    metadata: { databases: { app: { ...METADATA.databases.app, permissions: grants } } },
    secret: "pg-write-tests",
  });
  const api = (path: string, body: unknown, actor = "ann") =>
    svc.client.post(path, {
      body: JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${svc.create_token(actor)}`,
      },
    });
  try {
    await t.step("a canned write inserts a row", async () => {
      const response = await svc.client.post("/app/add_item", {
        body: "id=3&name=plum",
        headers: {
          "Accept": "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
        },
      });
      assert.deepEqual(response.json(), {
        ok: true,
        message: "Query executed, 1 row affected",
        redirect: null,
      });
      assert.equal(
        (await cluster.psql("select name from items where id = 3", "app")).trim(),
        "plum",
      );
    });

    await t.step("the write API inserts, upserts, updates and deletes rows", async () => {
      const inserted = await api("/app/items/-/insert", {
        rows: [{ id: 4, name: "kiwi" }, { id: 5, name: "lime" }],
        return: true,
      });
      assert.equal(inserted.status, 201, inserted.text);
      assert.deepEqual(inserted.json<{ rows: unknown[] }>().rows, [
        { id: 4, name: "kiwi" },
        { id: 5, name: "lime" },
      ]);
      const upserted = await api("/app/items/-/upsert", {
        rows: [{ id: 4, name: "KIWI" }, { id: 6, name: "date" }],
        return: true,
      });
      assert.equal(upserted.status, 200, upserted.text);
      assert.deepEqual(upserted.json<{ rows: unknown[] }>().rows, [
        { id: 4, name: "KIWI" },
        { id: 6, name: "date" },
      ]);
      const updated = await api("/app/items/5/-/update", {
        update: { name: "LIME" },
        return: true,
      });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.json<{ row: unknown }>().row, { id: 5, name: "LIME" });
      const deleted = await api("/app/items/6/-/delete", {});
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(
        (await cluster.psql("select string_agg(name, ',' order by id) from items", "app"))
          .trim(),
        "apple,pear,plum,KIWI,LIME",
      );
    });

    await t.step("the write API's refusals: bad data 400, no permission 403", async () => {
      const duplicate = await api("/app/items/-/insert", { row: { id: 4, name: "again" } });
      assert.equal(duplicate.status, 400);
      assert.match(duplicate.text, /duplicate key/);
      const wrongType = await api("/app/items/-/insert", { row: { id: "x", name: "y" } });
      assert.equal(wrongType.status, 400);
      const stranger = await api("/app/items/-/insert", { row: { id: 9, name: "z" } }, "bob");
      assert.equal(stranger.status, 403);
      const missing = await api("/app/items/99/-/delete", {});
      assert.equal(missing.status, 404);
      // The role may not write this table: the server's refusal, as a 403.
      const locked = await api("/app/locked/-/insert", { row: { id: 1 } });
      assert.equal(locked.status, 403, locked.text);
      assert.match(locked.text, /permission denied for table locked/);
    });

    await t.step("a plugin's execute_write_fn writes with the role's privileges", async () => {
      const db = svc.get_database("app");
      const count = await db.execute_write_fn(async (conn) => {
        assert.equal(conn.engine, "postgres");
        return (await conn.execute("update items set name = name where id = 1")).rowcount;
      });
      assert.equal(count, 1);
      await assert.rejects(
        db.execute_write_fn((conn) => conn.execute("insert into locked values (1)")),
        /permission denied for table locked/,
      );
    });

    await t.step("a wrong password fails without showing it", async () => {
      const wrong = "wr0ng-pa55word";
      const result = await run([
        cluster.url("app", "writer", wrong),
        "--get",
        "/app.json",
      ]);
      assert.ok(!result.out.includes(wrong) && !result.err.includes(wrong));
      assert.match(result.out + result.err, /password authentication failed/);
    });

    await t.step("PGPASSWORD is used and never printed", async () => {
      Deno.env.set("PGPASSWORD", PASSWORD);
      try {
        const result = await run([cluster.url("app", "writer"), "--get", "/app/items.json"]);
        assert.equal(result.code, 0, result.err);
        assert.match(result.out, /apple/);
        assert.ok(!result.out.includes(PASSWORD) && !result.err.includes(PASSWORD));
      } finally {
        Deno.env.delete("PGPASSWORD");
      }
    });
  } finally {
    await svc.close();
  }
}

Deno.test({
  name: "PostgreSQL: safety of visitors' SQL, writes and passwords (one throw-away cluster)",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster({ passwords: true });
    try {
      await cluster.psql("create database app");
      await cluster.psql(SCHEMA, "app");
      await t.step(
        "visitors' SQL is limited, cancelled and kept read-only",
        (t) => readerSteps(t, cluster),
      );
      await t.step(
        "a role that may write writes; the CLI never prints passwords",
        (t) => writerSteps(t, cluster),
      );
    } finally {
      await cluster.stop();
    }
  },
});
