/**
 * `execute_fn` and `execute_write_fn` on a PostgreSQL database, against a real throw-away
 * cluster: a plugin's function gets a `PgConnection` (`await conn.execute(sql, params)`) in a
 * `READ ONLY` transaction under the read's time limit, or in a read-write transaction of its own
 * that commits when the function resolves and rolls back when it throws; errors are the data
 * layer's. Ignored with a message when PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { DatabaseError, DatabaseNotMutable, QueryInterrupted } from "../../src/db/errors.ts";
import { PgConnection } from "../../src/db/postgres_connection.ts";
import { pgAvailable, startCluster } from "../fixtures/pg_cluster.ts";

const HAVE_PG = pgAvailable("PostgreSQL execute_fn tests");

const SCHEMA = `
create table items (id int primary key, name text, price double precision);
insert into items values (1, 'apple', 1.5), (2, 'pear', 2);
`;

Deno.test({
  name: "PostgreSQL: execute_fn and execute_write_fn hand plugins a transaction's connection",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster();
    await cluster.psql("create database app");
    await cluster.psql(SCHEMA, "app");
    const svc = new Service({
      postgres: [cluster.url("app")],
      settings: { sql_time_limit_ms: 300 },
      metadata: { permissions: { "create-table": true } },
    });
    try {
      await svc.invoke_startup();
      const db = svc.get_database("app");

      await t.step("execute_fn: reads with parameters, cursor methods as on SQLite", async () => {
        const result = await db.execute_fn(async (conn) => {
          assert.ok(conn instanceof PgConnection);
          assert.equal(conn.engine, "postgres");
          assert.equal((conn as PgConnection).read_only, true);
          const byName = await conn.execute("select name, price from items where id = :id", {
            id: 1,
          });
          const byPosition = await conn.execute("select count(*) from items where id > ?", [0]);
          return {
            columns: byName.columns,
            description: byName.description?.map((d) => d[0]),
            one: byName.fetchone(),
            rest: byName.fetchall(),
            count: byPosition.fetchone()?.[0],
            rowcount: byPosition.rowcount,
          };
        });
        assert.deepEqual(result, {
          columns: ["name", "price"],
          description: ["name", "price"],
          one: ["apple", 1.5],
          rest: [],
          count: 2,
          rowcount: -1,
        });
      });

      await t.step("execute_fn: the transaction is read-only", async () => {
        const error = await db.execute_fn((conn) =>
          conn.execute("insert into items values (3, 'x', 1)")
        ).catch((e) => e);
        assert.ok(error instanceof DatabaseError, String(error));
        assert.match(error.message, /read-only transaction/);
        assert.equal(await cluster.psql("select count(*) from items", "app"), "2\n");
      });

      await t.step("execute_fn: a runaway read stops at the time limit", async () => {
        const started = performance.now();
        await assert.rejects(
          db.execute_fn((conn) => conn.execute("select pg_sleep(5)")),
          QueryInterrupted,
        );
        assert.ok(performance.now() - started < 3000);
      });

      await t.step("bad SQL is a QueryError with the server's message", async () => {
        const error = await db.execute_fn((conn) => conn.execute("select nope from items"))
          .catch((e) => e);
        assert.ok(error instanceof DatabaseError);
        assert.equal(error.name, "QueryError");
        assert.match(error.message, /column "nope" does not exist/);
      });

      await t.step("a connection is refused once its transaction is over", async () => {
        let kept: PgConnection | null = null;
        await db.execute_fn((conn) => void (kept = conn as PgConnection));
        await assert.rejects(kept!.execute("select 1"), /transaction is over/);
      });

      await t.step("execute_write_fn: commits when the function resolves", async () => {
        const rowcount = await db.execute_write_fn(async (conn) => {
          assert.equal((conn as PgConnection).read_only, false);
          await conn.execute("insert into items values (:id, :name, 3)", { id: 3, name: "fig" });
          const many = await (conn as PgConnection).executemany(
            "update items set price = price + 1 where id = ?",
            [[1], [2]],
          );
          return many.rowcount;
        });
        assert.equal(rowcount, 2);
        assert.equal(
          await cluster.psql("copy (select id, price from items order by id) to stdout", "app"),
          "1\t2.5\n2\t3\n3\t3\n",
        );
      });

      await t.step("execute_write_fn: a throw rolls everything back", async () => {
        await assert.rejects(
          db.execute_write_fn(async (conn) => {
            await conn.execute("delete from items");
            throw new Error("changed my mind");
          }),
          /changed my mind/,
        );
        assert.equal(await cluster.psql("select count(*) from items", "app"), "3\n");
      });

      await t.step(
        "a failed statement fails the write even when the function caught it",
        async () => {
          // PostgreSQL has aborted the transaction: its COMMIT would quietly roll back.
          await assert.rejects(
            db.execute_write_fn(async (conn) => {
              await conn.execute("insert into items values (5, 'lost', 1)");
              try {
                await conn.execute("insert into items values (1, 'duplicate', 1)");
              } catch { /* ignored by the plugin, not by Vitrine */ }
              return "done";
            }),
            /duplicate key value/,
          );
          assert.equal(await cluster.psql("select count(*) from items where id = 5", "app"), "0\n");
        },
      );

      await t.step("a statement the function did not await is part of the write", async () => {
        await db.execute_write_fn((conn) => {
          conn.execute("insert into items values (6, 'unawaited', 1)");
          return null;
        });
        assert.equal(
          await cluster.psql("select name from items where id = 6", "app"),
          "unawaited\n",
        );
        // One that fails fails the write, and is no unhandled rejection (which ends the process).
        await assert.rejects(
          db.execute_write_fn((conn) => {
            conn.execute("delete from items where id = 6");
            conn.execute("insert into items values (1, 'duplicate', 1)");
            return null;
          }),
          /duplicate key value/,
        );
        assert.equal(await cluster.psql("select count(*) from items where id = 6", "app"), "1\n");
        await db.execute_write_fn((conn) => conn.execute("delete from items where id = 6"));
      });

      await t.step("execute_write_fn: transaction control and SET are refused", async () => {
        for (const sql of ["commit", "set search_path = nowhere", "rollback"]) {
          await assert.rejects(
            db.execute_write_fn((conn) => conn.execute(sql)),
            /cannot run inside this transaction/,
          );
        }
      });

      await t.step("execute_write_fn: block: false answers a task id", async () => {
        const id = await db.execute_write_fn(
          (conn) => conn.execute("delete from items where id = 3"),
          { block: false },
        );
        assert.match(String(id), /^[0-9a-f-]{36}$/);
        await db.drainWrites();
        assert.equal(await cluster.psql("select count(*) from items", "app"), "2\n");
      });

      await t.step("execute_write_fn: refused on a database that is not mutable", async () => {
        const { PostgresDatabase } = await import("../../src/db/postgres_database.ts");
        const { parsePgTarget } = await import("../../src/db/postgres_url.ts");
        const { standaloneHost } = await import("../../src/db/host.ts");
        const readOnly = new PostgresDatabase(
          standaloneHost(),
          parsePgTarget(cluster.url("app")),
          { is_mutable: false },
        );
        try {
          await assert.rejects(
            readOnly.execute_write_fn((conn) => conn.execute("delete from items")),
            DatabaseNotMutable,
          );
        } finally {
          readOnly.close();
        }
      });

      await t.step("Vitrine's own execute_fn callers still answer on PostgreSQL", async () => {
        // Custom SQL with an ORDER BY (keyset planning asks SQLite only) and the create-table
        // page (its foreign key targets come from the introspection here).
        const query = await svc.client.get(
          "/app/-/query.json?sql=" + encodeURIComponent("select id from items order by id"),
        );
        assert.equal(query.status, 200, query.text);
        assert.deepEqual(query.json().rows, [{ id: 1 }, { id: 2 }]);
        const page = await svc.client.get("/-/create-table");
        assert.equal(page.status, 200, page.text);
        assert.match(page.text, /items(&quot;|&#34;|"):\[(&quot;|&#34;|")id/);
      });
    } finally {
      await svc.close();
      await cluster.stop();
    }
  },
});
