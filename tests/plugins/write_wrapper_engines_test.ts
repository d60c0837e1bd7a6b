/**
 * `write_wrapper` hooks around every kind of write, on a SQLite file and on a PostgreSQL database
 * of the same tables (a real throw-away cluster), through one real plugin module
 * (tests/fixtures/plugins/audit_writes.ts, an async generator): its audit row is written in the
 * write's own transaction, its veto before or after the write rolls everything back, and its
 * events are sent only once the write committed. Both engines must answer alike.
 */
import assert from "node:assert/strict";
import { fromFileUrl } from "./test_paths.ts";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { pgAvailable, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";
import { seen, sent } from "../fixtures/plugins/audit_writes.ts";

const HAVE_PG = pgAvailable("write_wrapper tests on PostgreSQL");
const plugin = fromFileUrl(new URL("../fixtures/plugins/audit_writes.ts", import.meta.url));

const ITEMS = `
create table items (id int primary key, name text);
insert into items values (1, 'apple'), (2, 'pear'), (3, 'plum'), (4, 'kiwi');
`;
const SQLITE_AUDIT = "create table audit (id integer primary key, what text);";
const PG_AUDIT = "create table audit (id serial primary key, what text);";

const ACTIONS = [
  "insert-row",
  "update-row",
  "delete-row",
  "execute-write-sql",
  "create-table",
  "drop-table",
];
const METADATA = {
  databases: {
    app: {
      permissions: Object.fromEntries(ACTIONS.map((action) => [action, { id: "ann" }])),
      queries: {
        rename_item: {
          sql: "update items set name = :name where id = :id",
          write: true,
          allow: { id: "ann" },
        },
      },
    },
  },
};

function post(svc: Service, path: string, body: unknown, headers: Record<string, string> = {}) {
  return svc.client.post(path, {
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${svc.create_token("ann")}`,
      ...headers,
    },
  });
}

async function scalar(svc: Service, sql: string): Promise<unknown> {
  return (await svc.get_database("app").execute(sql)).single_value();
}

/** Every kind of write Vitrine makes for a request, each expected to succeed. */
const WRITES: [string, unknown][] = [
  ["/app/items/-/insert", { row: { id: 10, name: "fig" } }],
  ["/app/items/-/upsert", { rows: [{ id: 10, name: "figs" }] }],
  ["/app/items/10/-/update", { update: { name: "fig!" } }],
  ["/app/items/10/-/delete", {}],
  ["/app/items/-/update-rows", { pks: [1, 2], update: { name: "checked" } }],
  ["/app/items/-/delete-rows", { pks: [4] }],
  ["/app/-/execute-write", { sql: "update items set name = 'exec' where id = 3" }],
  ["/app/-/create", { table: "made", columns: [{ name: "id", type: "integer" }], pk: "id" }],
  ["/app/made/-/drop", { confirm: true }],
  ["/app/rename_item", { id: 1, name: "canned" }],
];

/** What one engine did with the writes and vetoes: statuses, audit rows, events, items. */
async function story(svc: Service): Promise<Record<string, unknown>> {
  sent.length = 0;
  seen.length = 0;
  const statuses: number[] = [];
  const auditRows: number[] = [];
  for (const [path, body] of WRITES) {
    const response = await post(svc, path, body);
    assert.ok(response.status < 300, `${path}: ${response.status} ${response.text}`);
    statuses.push(response.status);
    auditRows.push(Number(await scalar(svc, "select count(*) from audit")));
  }
  const audited = Number(await scalar(svc, "select count(*) from audit"));
  const eventsBefore = sent.length;

  // Vetoed before the write: nothing written, nothing audited, no event.
  const before = await post(svc, "/app/items/-/insert", { row: { id: 20, name: "no" } }, {
    "x-veto": "before",
  });
  // Vetoed after the write and its audit row: both roll back, no event.
  const after = await post(svc, "/app/items/2/-/update", { update: { name: "vetoed" } }, {
    "x-veto": "after",
  });
  const afterSql = await post(svc, "/app/-/execute-write", { sql: "delete from items" }, {
    "x-veto": "after",
  });
  // A write that fails on its own: the wrapper gets the error thrown in, no event.
  const failing = await post(svc, "/app/items/-/insert", { row: { id: 1, name: "dup" } });
  return {
    statuses,
    auditRows,
    what: (await svc.get_database("app").execute("select what from audit order by id")).rows
      .map((row) => row[0]),
    // Each event was sent once its write had committed: a separate read saw its audit row.
    eventsSeeTheirRow: sent.slice(0, eventsBefore).map((event, i) =>
      event.audit_rows === auditRows[i]
    ),
    events: eventsBefore,
    vetoes: [before.status, before.json().error, after.status, after.json().error, afterSql.status],
    failing: failing.status,
    auditAfterVetoes: Number(await scalar(svc, "select count(*) from audit")) - audited,
    eventsAfterVetoes: sent.length - eventsBefore,
    items: (await svc.get_database("app").execute("select id, name from items order by id")).rows
      .map((row) => `${row[0]}:${row[1]}`),
    outcomes: seen.map((entry) => entry.outcome.replace(/^error: .*/, "error")),
  };
}

Deno.test({
  name:
    "write_wrapper: an async wrapper audits and vetoes every write alike on SQLite and PostgreSQL",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-wrappers-" });
    let cluster: PgCluster | null = null;
    let lite: Service | null = null;
    let pg: Service | null = null;
    try {
      const file = `${dir}/app.db`;
      const out = await new Deno.Command("sqlite3", { args: [file, ITEMS + SQLITE_AUDIT] })
        .output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      cluster = await startCluster();
      await cluster.psql("create database app");
      await cluster.psql(ITEMS + PG_AUDIT, "app");
      const options = { metadata: METADATA, plugins: [plugin], secret: "wrappers" };
      lite = new Service({ files: [file], ...options });
      pg = new Service({ postgres: [cluster.url("app")], ...options });
      await lite.invoke_startup();
      await pg.invoke_startup();

      const onSqlite = await story(lite);
      const sqliteEngines = new Set(seen.map((entry) => entry.engine));
      const onPostgres = await story(pg);
      const pgEngines = new Set(seen.map((entry) => entry.engine));
      assert.deepEqual([...sqliteEngines], ["sqlite"]);
      assert.deepEqual([...pgEngines], ["postgres"]);

      // Every write ran inside the wrapper: one audit row each, written with it.
      assert.deepEqual(onPostgres.auditRows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.deepEqual(onPostgres.what, WRITES.map(([path]) => `POST ${path}`));
      assert.equal(onPostgres.events, WRITES.length);
      assert.ok((onPostgres.eventsSeeTheirRow as boolean[]).every(Boolean));
      assert.deepEqual(onPostgres.vetoes, [
        403,
        "Vetoed by the audit plugin before the write",
        403,
        "Vetoed by the audit plugin after the write",
        403,
      ]);
      assert.equal(onPostgres.failing, 400);
      assert.equal(onPostgres.auditAfterVetoes, 0);
      assert.equal(onPostgres.eventsAfterVetoes, 0);
      assert.deepEqual(onPostgres.items, ["1:canned", "2:checked", "3:exec"]);
      // The last wrapper saw the failing insert's error thrown into it.
      assert.equal((onPostgres.outcomes as string[]).at(-1), "error");
      assert.deepEqual(onPostgres, onSqlite);
    } finally {
      await lite?.close();
      await pg?.close();
      await cluster?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "write_wrapper: a plain generator that does not touch conn works unchanged on PostgreSQL",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-wrappers-" });
    const cluster = await startCluster();
    let svc: Service | null = null;
    try {
      await cluster.psql("create database app");
      await cluster.psql(ITEMS, "app");
      const module = `${dir}/plain_wrapper.ts`;
      await Deno.writeTextFile(
        module,
        `export const results = [];
export function write_wrapper({ database }) {
  return function* () {
    const result = yield;
    results.push({ database, result });
  };
}`,
      );
      svc = new Service({
        postgres: [cluster.url("app")],
        metadata: METADATA,
        plugins: [module],
        secret: "wrappers",
      });
      await svc.invoke_startup();
      const response = await post(svc, "/app/items/-/insert", {
        row: { id: 30, name: "date" },
        return: true,
      });
      assert.equal(response.status, 201, response.text);
      const { results } = await import(`file://${module}`);
      assert.deepEqual(results, [{ database: "app", result: [{ id: 30, name: "date" }] }]);
    } finally {
      await svc?.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("write_wrapper: an alter is inside the wrappers' transaction: a veto after it undoes it, the audit row commits with it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-wrappers-" });
  try {
    const file = `${dir}/app.db`;
    const out = await new Deno.Command("sqlite3", {
      args: [
        file,
        ITEMS + SQLITE_AUDIT + "pragma foreign_keys = on;" +
        "create table notes (id integer primary key, item int references items on delete cascade);" +
        "insert into notes values (1, 1);",
      ],
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const metadata = structuredClone(METADATA);
    (metadata.databases.app.permissions as Record<string, unknown>)["alter-table"] = { id: "ann" };
    await using svc = new Service({ files: [file], metadata, plugins: [plugin], secret: "w" });
    // Read from the file itself, as another program would.
    const fileValue = (sql: string) => {
      using conn = Connection.open(file, { mode: "ro" });
      return conn.query(sql).rows.map((row) => row[0]);
    };
    const columns = () => fileValue("select name from pragma_table_info('items')");
    // A rebuild (the type of a column changes), then one vetoed after it ran.
    const alter = (headers: Record<string, string> = {}) =>
      post(svc, "/app/items/-/alter", {
        operations: [{ op: "alter_column", args: { name: "name", type: "integer" } }],
      }, headers);
    const vetoed = await alter({ "x-veto": "after" });
    assert.equal(vetoed.status, 403, vetoed.text);
    assert.equal(vetoed.json().error, "Vetoed by the audit plugin after the write");
    assert.deepEqual(
      fileValue("select type from pragma_table_info('items') where name = 'name'"),
      ["TEXT"],
    );
    assert.deepEqual(fileValue("select count(*) from audit"), [0]);
    const done = await post(svc, "/app/items/-/alter", {
      operations: [{ op: "add_column", args: { name: "note", type: "text" } }],
    });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(columns(), ["id", "name", "note"]);
    assert.deepEqual(fileValue("select count(*) from audit"), [1]);
    const rebuilt = await alter();
    assert.equal(rebuilt.status, 200, rebuilt.text);
    assert.deepEqual(
      fileValue("select type from pragma_table_info('items') where name = 'name'"),
      ["INTEGER"],
    );
    // The rebuild dropped the old table with foreign keys off: the cascade did not fire.
    assert.deepEqual(fileValue("select count(*) from notes"), [1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
