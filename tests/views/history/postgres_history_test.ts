/**
 * The history of writes on a PostgreSQL database, against a real throw-away cluster: the same
 * row writes made to a SQLite file and to a PostgreSQL database of the same tables are recorded
 * alike (operation, key, before, after, actor, request), the history pages answer alike, and a
 * revert undoes changes in one transaction or answers the same 409 when the row changed since.
 * Generated columns are left out on both. Write SQL is not recorded on PostgreSQL, and its
 * history page says so. Ignored with a message
 * when PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { Service } from "../../../src/service.ts";
import { pgAvailable, type PgCluster, startCluster } from "../../fixtures/pg_cluster.ts";
import type { Change } from "./_history_helpers.ts";
import { vitrine } from "../../cli/run_vitrine.ts";

const HAVE_PG = pgAvailable("PostgreSQL history tests");

const SQLITE_TABLES = `
create table items (id integer primary key, name text, price real,
  cents real generated always as (price * 100));
create table order_items (order_id text, product_id integer, quantity integer,
  primary key (order_id, product_id));
`;
const PG_TABLES = `
create table items (id integer primary key, name text, price double precision,
  cents double precision generated always as (price * 100) stored);
create table order_items (order_id text, product_id integer, quantity integer,
  primary key (order_id, product_id));
`;
const ROWS = `
insert into items (id, name, price)
  values (1, 'knife', 34.5), (2, 'fork', 3), (3, 'spoon', 2.25), (4, 'cup', 5);
insert into order_items values ('A/1', 1, 1), ('A/1', 2, 3), ('B/2', 1, 2);
`;

const ACTIONS = [
  "insert-row",
  "update-row",
  "delete-row",
  "execute-write-sql",
  "create-table",
  "revert-change",
];
const METADATA = {
  databases: {
    app: { permissions: Object.fromEntries(ACTIONS.map((action) => [action, { id: "ann" }])) },
  },
};

function post(svc: Service, path: string, body: unknown) {
  return svc.client.post(path, {
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("ann")}`,
    },
  });
}

async function changesOf(svc: Service, path = "/app/-/history.json"): Promise<Change[]> {
  const response = await svc.client.get(path);
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  return response.json().changes;
}

/** What must match between engines: everything but ids, times and request ids. */
function comparable(changes: Change[]) {
  return changes.map(({ table, pks, operation, before, after, actor, request, reverts }) => ({
    table,
    pks,
    operation,
    before,
    after,
    actor,
    request,
    reverts: reverts !== null,
  }));
}

interface Pair {
  lite: Service;
  pg: Service;
  cluster: PgCluster;
}

/** Posts to both; the same status on both; the PostgreSQL answer's JSON. */
async function both(pair: Pair, path: string, body: unknown, status = 200) {
  const lite = await post(pair.lite, path, body);
  const pg = await post(pair.pg, path, body);
  assert.equal(lite.status, status, `SQLite ${path}: ${lite.text}`);
  assert.equal(pg.status, status, `PostgreSQL ${path}: ${pg.text}`);
  return { lite: lite.json(), pg: pg.json() };
}

async function rows(svc: Service, sql: string): Promise<unknown[][]> {
  return (await svc.get_database("app").execute(sql)).rows.map((row) => [...row]);
}

async function recordSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  await t.step("row writes are recorded alike: insert, upsert, update, delete, bulk", async () => {
    await both(pair, "/app/items/-/insert", { row: { id: 9, name: "fig", price: 12 } }, 201);
    await both(pair, "/app/items/-/upsert", {
      rows: [{ id: 1, price: 12.0 }, { id: 2, name: "Spork" }, { id: 10, name: "new", price: 1 }],
    });
    await both(pair, "/app/items/9/-/update", { update: { name: "figs" } });
    // Setting what is there already changes nothing: nothing recorded.
    await both(pair, "/app/items/9/-/update", { update: { name: "figs" } });
    await both(pair, "/app/order_items/A~2F1,2/-/delete", {});
    await both(pair, "/app/items/-/update-rows", { pks: [3, 4], update: { price: 7 } });
    await both(pair, "/app/order_items/-/delete-rows", { pks: [["B/2", 1]] });
    await both(pair, "/app/items/-/insert", {
      rows: [{ id: 4, name: "mug", price: 5.5 }],
      replace: true,
    }, 201);
    // A key that changes is two changes: the old key deleted, the new one inserted.
    await both(pair, "/app/items/10/-/update", { update: { id: 11 } });
    const lite = await changesOf(pair.lite);
    const pg = await changesOf(pair.pg);
    assert.deepEqual(comparable(pg), comparable(lite));
    assert.deepEqual(
      pg.map((c) => `${c.operation} ${c.table} ${JSON.stringify(c.pks)}`),
      [
        "insert items [11]",
        "delete items [10]",
        "update items [4]",
        'delete order_items ["B/2",1]',
        "update items [4]",
        "update items [3]",
        'delete order_items ["A/1",2]',
        "update items [9]",
        "insert items [10]",
        "update items [2]",
        "update items [1]",
        "insert items [9]",
      ],
    );
    assert.deepEqual(pg.at(-1)!.after, { id: 9, name: "fig", price: 12 });
    assert.equal(pg.at(-1)!.actor, "ann");
    // One request, one id: the upsert's three rows share it.
    assert.equal(new Set(pg.slice(-4, -1).map((c) => c.request_id)).size, 1);
    // A double precision 12 is 12.0, as SQLite's REAL; the generated column is left out.
    const text = (await pair.pg.client.get("/app/items/1/-/history.json")).text;
    assert.match(text, /"after":\{"id":1,"name":"knife","price":12\.0\}/);
  });

  await t.step("the table and row history pages answer alike", async () => {
    for (const path of ["/app/items/-/history.json", "/app/order_items/A~2F1,2/-/history.json"]) {
      const lite = await changesOf(pair.lite, path);
      const pg = await changesOf(pair.pg, path);
      assert.ok(pg.length > 0, path);
      assert.deepEqual(comparable(pg), comparable(lite), path);
    }
    const page = await pair.pg.client.get("/app/items/9/-/history");
    assert.equal(page.status, 200);
    assert.match(page.text, /figs/);
  });

  await t.step("a failing write records nothing", async () => {
    const count = (await changesOf(pair.pg)).length;
    await both(pair, "/app/items/-/update-rows", { pks: [1, 99], update: { name: "x" } }, 400);
    await both(pair, "/app/items/-/insert", { rows: [{ id: 50 }, { id: 1 }] }, 400);
    assert.equal((await changesOf(pair.pg)).length, count);
  });

  await t.step(
    "the rows a create inserts are recorded alike; a dry run records nothing",
    async () => {
      const body = { table: "fruit", rows: [{ id: 1, name: "apple" }, { id: 2, name: "pear" }] };
      await both(pair, "/app/-/create", { ...body, table: "dry", pk: "id", dry_run: true });
      await both(pair, "/app/-/create", { ...body, pk: "id" }, 201);
      const lite = await changesOf(pair.lite, "/app/fruit/-/history.json");
      const pg = await changesOf(pair.pg, "/app/fruit/-/history.json");
      assert.deepEqual(comparable(pg), comparable(lite));
      assert.deepEqual(pg.map((c) => [c.operation, c.pks, c.after]), [
        ["insert", [2], { id: 2, name: "pear" }],
        ["insert", [1], { id: 1, name: "apple" }],
      ]);
      assert.equal((await changesOf(pair.pg, "/app/-/history.json?table=dry")).length, 0);
    },
  );

  await t.step("write SQL is not recorded on PostgreSQL, and the page says so", async () => {
    const count = (await changesOf(pair.pg)).length;
    const response = await post(pair.pg, "/app/-/execute-write", {
      sql: "update items set name = 'by sql' where id = 2",
    });
    assert.equal(response.status, 200, response.text);
    assert.equal((await changesOf(pair.pg)).length, count);
    const page = await pair.pg.client.get("/app/-/history");
    assert.match(page.text, /Not recorded on PostgreSQL: write SQL/);
  });
}

async function revertSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  const revert = "/app/-/history/-/revert";
  await t.step("revert one change, then a whole request, in one transaction", async () => {
    const [pgChange] = await changesOf(pair.pg, "/app/items/9/-/history.json");
    const [liteChange] = await changesOf(pair.lite, "/app/items/9/-/history.json");
    assert.equal(pgChange.operation, "update");
    const lite = await post(pair.lite, revert, { change_id: liteChange.id });
    const pg = await post(pair.pg, revert, { change_id: pgChange.id });
    assert.equal(lite.status, 200, lite.text);
    assert.equal(pg.status, 200, pg.text);
    assert.deepEqual(await rows(pair.pg, "select name from items where id = 9"), [["fig"]]);
    // The upsert's request: two updates and an insert (its row since moved to key 11, so that
    // part is refused and nothing of the request is undone).
    const upsert = (await changesOf(pair.pg, "/app/items/1/-/history.json")).at(-1)!;
    const refused = await post(pair.pg, revert, { request_id: upsert.request_id });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.json().error, /cannot be reverted: the row was deleted since/);
    assert.deepEqual(await rows(pair.pg, "select price from items where id = 1"), [[12]]);
    // The bulk update's request is refused while row 4 holds the later replace; once that is
    // undone, the bulk update is undone whole.
    const bulk = (await changesOf(pair.pg, "/app/items/3/-/history.json"))[0];
    assert.equal((await post(pair.pg, revert, { request_id: bulk.request_id })).status, 409);
    const [replace] = await changesOf(pair.pg, "/app/items/4/-/history.json");
    const undone = await post(pair.pg, revert, { request_id: replace.request_id });
    assert.equal(undone.status, 200, undone.text);
    assert.deepEqual(await rows(pair.pg, "select name, price from items where id = 4"), [[
      "cup",
      7,
    ]]);
    const done = await post(pair.pg, revert, { request_id: bulk.request_id });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json().reverted.length, 2);
    assert.deepEqual(
      await rows(pair.pg, "select id, price from items where id in (3, 4) order by id"),
      [[3, 2.25], [4, 5]],
    );
  });

  await t.step("revert a delete: the row comes back with its values", async () => {
    const [deleted] = await changesOf(pair.pg, "/app/order_items/A~2F1,2/-/history.json");
    assert.equal(deleted.operation, "delete");
    const response = await post(pair.pg, revert, { change_id: deleted.id });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      await rows(
        pair.pg,
        "select quantity from order_items where order_id = 'A/1' and product_id = 2",
      ),
      [[3]],
    );
    const [recorded] = await changesOf(pair.pg, "/app/order_items/A~2F1,2/-/history.json");
    assert.equal(recorded.operation, "insert");
    assert.equal(recorded.reverts, deleted.id);
  });

  await t.step("a row changed since is a 409 with the same words as on SQLite", async () => {
    await both(pair, "/app/items/9/-/update", { update: { price: 1 } });
    const [liteLast] = await changesOf(pair.lite, "/app/items/9/-/history.json");
    const [pgLast] = await changesOf(pair.pg, "/app/items/9/-/history.json");
    await both(pair, "/app/items/9/-/update", { update: { price: 2 } });
    const lite = await post(pair.lite, revert, { change_id: liteLast.id });
    const pg = await post(pair.pg, revert, { change_id: pgLast.id });
    assert.equal(lite.status, 409);
    assert.equal(pg.status, 409);
    const words = (text: string) => text.replace(/Change \d+/, "Change N");
    assert.equal(words(pg.json().error), words(lite.json().error));
    assert.match(pg.json().error, /the row changed since/);
    assert.deepEqual(await rows(pair.pg, "select price from items where id = 9"), [[2]]);
  });
}

Deno.test({
  name: "PostgreSQL history: row writes recorded as on SQLite; pages and revert work",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-pg-history-" });
    const cluster = await startCluster();
    const file = `${dir}/app.db`;
    const out = await new Deno.Command("sqlite3", { args: [file, SQLITE_TABLES + ROWS] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    await cluster.psql("create database app");
    await cluster.psql(PG_TABLES + ROWS, "app");
    const options = { metadata: METADATA, secret: "pg-history" };
    const pair: Pair = {
      lite: new Service({ files: [file], ...options }),
      pg: new Service({ postgres: [cluster.url("app")], ...options }),
      cluster,
    };
    try {
      await pair.lite.invoke_startup();
      await pair.pg.invoke_startup();
      await recordSteps(t, pair);
      await revertSteps(t, pair);
    } finally {
      await pair.lite.close();
      await pair.pg.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    'PostgreSQL history: "database" stops start-up naming the setting; "internal" and "off" do as asked',
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-pg-history-" });
    const cluster = await startCluster();
    const services: Service[] = [];
    const serve = (history: string | null) => {
      const app = { ...METADATA.databases.app, ...(history ? { history } : {}) };
      const svc = new Service({
        postgres: [cluster.url("app")],
        metadata: { databases: { app } },
        secret: "pg-history",
      });
      services.push(svc);
      return svc;
    };
    try {
      await cluster.psql("create database app");
      await cluster.psql(PG_TABLES + ROWS, "app");
      const refusal =
        /"history": "database" of database "app" cannot be kept on PostgreSQL: it means a _vitrine_history table in the SQLite file itself\. Use "internal" \(the default/;

      // `database` would be a table in a SQLite file: refused before anything is served, where
      // it was silently taken as `internal`.
      const inFile = serve("database");
      await assert.rejects(() => inFile.invoke_startup(), refusal);
      // The command stops with the same words, and no stack trace.
      const metadata = `${dir}/metadata.json`;
      await Deno.writeTextFile(
        metadata,
        JSON.stringify({ databases: { app: { history: "database" } } }),
      );
      const run = await vitrine([cluster.url("app"), "-m", metadata, "--get", "/.json"]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /^Error: "history": "database" of database "app" cannot be kept/);
      assert.match(run.stderr, refusal);
      assert.doesNotMatch(run.stderr, /\n\s+at /);

      // `internal` (and no setting) records each write; `off` records none.
      for (const [history, recorded] of [["internal", 1], [null, 1], ["off", 0]] as const) {
        const svc = serve(history);
        await svc.invoke_startup();
        const id = history === "internal" ? 20 : history === null ? 21 : 22;
        const insert = await post(svc, "/app/items/-/insert", { row: { id, name: "new" } });
        assert.equal(insert.status, 201, insert.text);
        const answer = (await svc.client.get(`/app/items/${id}/-/history.json`)).json();
        assert.equal(answer.recorded_in, history ?? "internal");
        assert.equal(answer.changes.length, recorded, `${history}: ${JSON.stringify(answer)}`);
      }
    } finally {
      for (const svc of services) await svc.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
