/**
 * The write endpoints beyond single rows on PostgreSQL, against a real throw-away cluster: the
 * same request to a SQLite file and to a PostgreSQL database of the same tables gets the same
 * answer (status and JSON), each write is one transaction, and a role that may not write is
 * refused with the server's reason. Ignored with a message when PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";

const HAVE_PG = pgAvailable("PostgreSQL write tests");
const PASSWORD = "pg-writes-pa55";

/** The same tables in both engines (int keys answer as numbers on both). */
const TABLES = `
create table items (id int primary key, name text);
insert into items values (1, 'apple'), (2, 'pear'), (3, 'plum'), (4, 'kiwi');
create table order_items (order_id text, product_id int, quantity int,
  primary key (order_id, product_id));
insert into order_items values ('A', 1, 1), ('A', 2, 1), ('B', 1, 3);
create table scratch (id int primary key, note text);
insert into scratch values (1, 'a'), (2, 'b');
`;

const ROLES = `
create role writer login password '${PASSWORD}';
grant select, insert, update, delete on items, order_items to writer;
grant create on schema public to writer;
alter table scratch owner to writer;
create role reader login password '${PASSWORD}';
grant select on items, order_items to reader;
`;

const ACTIONS = [
  "insert-row",
  "update-row",
  "delete-row",
  "execute-write-sql",
  "create-table",
  "drop-table",
  "alter-table",
];
const METADATA = {
  databases: {
    app: {
      permissions: Object.fromEntries(ACTIONS.map((action) => [action, { id: "ann" }])),
    },
  },
};

/** A SQLite file `app.db` holding {@link TABLES}. */
async function sqliteFile(dir: string): Promise<string> {
  const path = `${dir}/app.db`;
  const out = await new Deno.Command("sqlite3", { args: [path, TABLES] }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return path;
}

interface Pair {
  sqlite: Service;
  pg: Service;
  /** A reader-role service over the same PostgreSQL database. */
  reader: Service;
  cluster: PgCluster;
}

function post(svc: Service, path: string, body: unknown, actor = "ann") {
  return svc.client.post(path, {
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token(actor)}`,
    },
  });
}

/** Posts to both; asserts the same status and JSON; returns the JSON. */
async function same(pair: Pair, path: string, body: unknown, status: number) {
  const lite = await post(pair.sqlite, path, body);
  const pg = await post(pair.pg, path, body);
  assert.equal(lite.status, status, `SQLite: ${lite.text}`);
  assert.equal(pg.status, status, `PostgreSQL: ${pg.text}`);
  assert.deepEqual(pg.json(), lite.json());
  return pg.json<Record<string, unknown>>();
}

/** The PostgreSQL table's rows as `psql` prints them, one line each. */
async function pgRows(cluster: PgCluster, sql: string): Promise<string> {
  return (await cluster.psql(`copy (${sql}) to stdout`, "app")).trim();
}

async function bulkSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  await t.step("update-rows: same answer, every row in one transaction", async () => {
    const body = await same(pair, "/app/items/-/update-rows", {
      pks: [1, "2"],
      update: { name: "checked" },
      return: true,
    }, 200);
    assert.equal(body.count, 2);
    await same(pair, "/app/order_items/-/update-rows", {
      pks: [["A", 1], ["A", "2"]],
      update: { quantity: 5 },
    }, 200);
    assert.equal(
      await pgRows(pair.cluster, "select quantity from order_items order by 1"),
      "3\n5\n5",
    );
  });

  await t.step("update-rows: a missing row changes nothing and is named", async () => {
    const body = await same(pair, "/app/items/-/update-rows", {
      pks: [3, 99],
      update: { name: "gone" },
    }, 400);
    assert.match(JSON.stringify(body), /Row id=99: record not found/);
    assert.equal(await pgRows(pair.cluster, "select name from items where id = 3"), "plum");
  });

  await t.step("delete-rows: same answer; a missing row undoes them all", async () => {
    const missing = await same(pair, "/app/items/-/delete-rows", { pks: [3, 98] }, 400);
    assert.match(JSON.stringify(missing), /Row id=98: record not found/);
    assert.equal(await pgRows(pair.cluster, "select count(*) from items"), "4");
    const body = await same(pair, "/app/items/-/delete-rows", { pks: [3, 4, 3] }, 200);
    assert.deepEqual(body, { ok: true, count: 2 });
    assert.equal(await pgRows(pair.cluster, "select id from items order by id"), "1\n2");
  });

  await t.step("a role that may not write is refused with the server's reason", async () => {
    const response = await post(pair.reader, "/app/items/-/delete-rows", { pks: [1] });
    assert.equal(response.status, 403, response.text);
    assert.match(response.text, /permission denied for table items/);
    assert.equal(await pgRows(pair.cluster, "select count(*) from items"), "2");
  });
}

/** Posts to both; the JSON of each when the status is the same. */
async function both(pair: Pair, path: string, body: unknown, status: number) {
  const lite = await post(pair.sqlite, path, body);
  const pg = await post(pair.pg, path, body);
  assert.equal(lite.status, status, `SQLite: ${lite.text}`);
  assert.equal(pg.status, status, `PostgreSQL: ${pg.text}`);
  return { lite: lite.json<Record<string, unknown>>(), pg: pg.json<Record<string, unknown>>() };
}

async function executeWriteSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  const path = "/app/-/execute-write";
  await t.step("execute-write: each statement's count, one transaction", async () => {
    const { lite, pg } = await both(pair, path, {
      sql: "insert into items (id, name) values (:id, :name);\n" +
        "update items set name = 'semi;colon' where id in (1, 2); -- a comment; with a ;\n" +
        "delete from items where id = 99;",
      params: { id: 10, name: "fig" },
    }, 200);
    // PostgreSQL has no rowid: no last row id (SQLite's is the inserted row's rowid).
    assert.equal(typeof lite.last_row_id, "number");
    assert.equal(pg.last_row_id, null);
    assert.deepEqual({ ...pg, last_row_id: lite.last_row_id }, lite);
    assert.equal(pg.message, "3 statements executed, 3 rows affected");
    assert.equal(
      await pgRows(pair.cluster, "select id, name from items order by id"),
      "1\tsemi;colon\n2\tsemi;colon\n10\tfig",
    );
  });

  await t.step("execute-write: the dry run answers the same and rolls back", async () => {
    const body = await same(pair, path, { sql: "delete from items", dry_run: true }, 200);
    assert.equal(body.message, "1 statement would run, changing 3 rows");
    assert.equal(await pgRows(pair.cluster, "select count(*) from items"), "3");
  });

  await t.step("execute-write: a failing statement is named and undoes the batch", async () => {
    const response = await post(pair.pg, path, {
      sql: "insert into items values (20, 'new'); insert into items values (1, 'again')",
    });
    assert.equal(response.status, 400, response.text);
    assert.match(response.text, /Statement 2 failed: duplicate key value/);
    assert.match(response.text, /in: insert into items values \(1, 'again'\)/);
    assert.equal(await pgRows(pair.cluster, "select count(*) from items where id = 20"), "0");
    // Read-only batches are refused in the same words.
    await same(pair, path, { sql: "select 1" }, 400);
    // What would outlive the transaction on a pooled connection is refused.
    const set = await post(pair.pg, path, { sql: "set search_path = nowhere; delete from items" });
    assert.equal(set.status, 400, set.text);
    assert.match(set.text, /Statement 1 failed: transaction control, SET/);
  });

  await t.step("execute-write: a function's body keeps its semicolons", async () => {
    const response = await post(pair.pg, path, {
      sql: "create function one() returns int language plpgsql as $body$ begin return 1; end " +
        "$body$; insert into items values (one() + 30, 'from a function')",
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.json<{ statements: unknown[] }>().statements.length, 2);
    assert.equal(
      await pgRows(pair.cluster, "select name from items where id = 31"),
      "from a function",
    );
  });

  await t.step("execute-write: a role that may not write is refused (403)", async () => {
    const response = await post(pair.reader, path, { sql: "delete from items" });
    assert.equal(response.status, 403, response.text);
    assert.match(response.text, /permission denied for table items/);
    assert.equal(await pgRows(pair.cluster, "select count(*) from items"), "4");
  });
}

async function dropSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  await t.step("drop: the same count first, then the table goes", async () => {
    const asked = await same(pair, "/app/scratch/-/drop", {}, 200);
    assert.equal(asked.row_count, 2);
    assert.deepEqual(await same(pair, "/app/scratch/-/drop", { confirm: true }, 200), {
      ok: true,
    });
    assert.equal(
      await pgRows(pair.cluster, "select count(*) from pg_tables where tablename = 'scratch'"),
      "0",
    );
    // The catalog is read again: the table's page is gone.
    assert.equal((await pair.pg.client.get("/app/scratch.json")).status, 404);
  });

  await t.step("drop: a table the role does not own is refused (403)", async () => {
    const response = await post(pair.pg, "/app/items/-/drop", { confirm: true });
    assert.equal(response.status, 403, response.text);
    assert.match(response.text, /must be owner of table items/);
    assert.equal(await pgRows(pair.cluster, "select count(*) from items"), "4");
  });
}

async function createSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  const columns = [
    { name: "id", type: "integer" },
    { name: "title", type: "text", not_null: true },
    { name: "score", type: "real", default: 1.5 },
    { name: "data", type: "blob" },
    { name: "amount", type: "numeric" },
  ];
  await t.step("create: the same answer but the schema, PostgreSQL's types", async () => {
    const { lite, pg } = await both(
      pair,
      "/app/-/create",
      { table: "books", columns, pk: "id" },
      201,
    );
    // By design the schema is each engine's own statement.
    assert.deepEqual({ ...pg, schema: lite.schema }, lite);
    assert.match(String(pg.schema), /"id" bigint PRIMARY KEY/);
    assert.equal(
      await pgRows(
        pair.cluster,
        "select column_name, data_type, is_nullable, column_default from information_schema.columns " +
          "where table_name = 'books' order by ordinal_position",
      ),
      [
        "id\tbigint\tNO\t\\N",
        "title\ttext\tNO\t\\N",
        "score\tdouble precision\tYES\t1.5",
        "data\tbytea\tYES\t\\N",
        "amount\tnumeric\tYES\t\\N",
      ].join("\n"),
    );
    // The new table is served and written at once.
    const inserted = await same(pair, "/app/books/-/insert", {
      row: { id: 1, title: "Dune" },
      return: true,
    }, 201);
    assert.deepEqual(inserted.rows, [
      { id: 1, title: "Dune", score: 1.5, data: null, amount: null },
    ]);
  });

  await t.step("create: a key not among the columns is an automatic id", async () => {
    await both(pair, "/app/-/create", {
      table: "notes",
      columns: [{ name: "body", type: "text" }],
      pk: "id",
    }, 201);
    const inserted = await same(pair, "/app/notes/-/insert", {
      rows: [{ body: "a" }, { body: "b" }],
      return: true,
    }, 201);
    assert.deepEqual(inserted.rows, [{ id: 1, body: "a" }, { id: 2, body: "b" }]);
  });

  await t.step("create: dry run, an existing table, a role without CREATE", async () => {
    const { lite, pg } = await both(pair, "/app/-/create", {
      table: "later",
      columns: [{ name: "x", type: "integer" }],
      dry_run: true,
    }, 200);
    assert.deepEqual(
      { ...pg, schema: lite.schema, statements: lite.statements },
      lite,
    );
    assert.equal(
      await pgRows(pair.cluster, "select count(*) from pg_tables where tablename = 'later'"),
      "0",
    );
    await same(pair, "/app/-/create", { table: "items", columns }, 400);
    const reader = await post(pair.reader, "/app/-/create", { table: "t3", columns });
    assert.equal(reader.status, 403, reader.text);
    assert.match(reader.text, /permission denied for schema public/);
    // Altering needs the table's owner: the writer role does not own items.
    const alter = await post(pair.pg, "/app/items/-/alter", {
      operations: [{ op: "add_column", args: { name: "extra" } }],
    });
    assert.equal(alter.status, 403, alter.text);
    assert.match(alter.text, /must be owner of table items/);
  });
}

Deno.test({
  name: "PostgreSQL: bulk writes, execute-write, create and drop answer as on SQLite",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster({ passwords: true });
    const dir = await Deno.makeTempDir();
    const services: Service[] = [];
    try {
      await cluster.psql("create database app");
      await cluster.psql(TABLES + ROLES, "app");
      const svc = (options: ConstructorParameters<typeof Service>[0]) => {
        const service = new Service({ metadata: METADATA, secret: "pg-writes", ...options });
        services.push(service);
        return service;
      };
      const pair: Pair = {
        sqlite: svc({ files: [await sqliteFile(dir)] }),
        pg: svc({ postgres: [`app=${cluster.url("app", "writer", PASSWORD)}`] }),
        reader: svc({ postgres: [`app=${cluster.url("app", "reader", PASSWORD)}`] }),
        cluster,
      };
      for (const service of services) await service.invoke_startup();
      await t.step("update-rows and delete-rows", (t) => bulkSteps(t, pair));
      await t.step("execute-write", (t) => executeWriteSteps(t, pair));
      await t.step("drop", (t) => dropSteps(t, pair));
      await t.step("create", (t) => createSteps(t, pair));
    } finally {
      for (const service of services) await service.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
