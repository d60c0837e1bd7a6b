/**
 * A PostgreSQL database served as SQLite files are: index, database, table, row (single and
 * compound keys), custom SQL with named parameters and canned queries, as pages and as JSON,
 * against a real throw-away cluster (ignored with a message when PostgreSQL is not installed).
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, startCluster } from "../fixtures/pg_cluster.ts";
import { run } from "../cli/run_main.ts";

const HAVE_PG = pgAvailable("PostgreSQL page tests");

const SCHEMA = `
create table items (id int primary key, name text not null, price numeric(8,2),
  tags text[], meta jsonb, added date, on_sale boolean, big bigint);
insert into items values
  (1, 'apple', 1.50, '{red,fruit}', '{"a": 1}', '2024-01-02', true, 9007199254740993),
  (2, 'pear', 2.25, '{green}', null, '2024-02-03', false, 7),
  (3, 'fig', 4.00, '{}', '[1, 2]', null, null, null);
create table orders (id int primary key, item_id int references items(id), qty int);
insert into orders values (10, 1, 3), (11, 2, 5), (12, 1, 1);
create table stock (shop text, item_id int references items(id), count int,
  primary key (shop, item_id));
insert into stock values ('north', 1, 10), ('north', 2, 0), ('south', 1, 4);
create table loose (a int, b text);
insert into loose values (1, 'x');
create table many (id int primary key, n int);
insert into many select g, g * 2 from generate_series(1, 12000) g;
create view cheap as select id, name from items where price < 2;
create schema extra;
create table extra.notes (id int primary key, body text);
insert into extra.notes values (1, 'hello');
`;

const METADATA = {
  databases: {
    shop: {
      queries: {
        by_name: { sql: "select id, name from items where name = :name" },
      },
    },
  },
};

Deno.test({
  name: "PostgreSQL: pages and JSON of a served database, and the command line",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster();
    const svc = new Service({
      postgres: [`shop=${cluster.url("app")}`],
      metadata: METADATA,
      // A shared, busy machine must not time facets out.
      settings: { facet_time_limit_ms: 5000, sql_time_limit_ms: 5000 },
    });
    try {
      await cluster.psql("create database app");
      await cluster.psql(SCHEMA, "app");
      await svc.invoke_startup();
      const json = async (path: string) => {
        const response = await svc.client.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        return response.json<Record<string, unknown>>();
      };
      const html = async (path: string) => {
        const response = await svc.client.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text.slice(0, 500)}`);
        return response.text;
      };

      await t.step("the index lists the database and its tables", async () => {
        const page = await html("/");
        assert.match(page, /href="\/shop"/);
        assert.match(page, /items/);
        const databases = await json("/-/databases.json") as unknown as {
          databases: { name: string; path: unknown; is_mutable: boolean }[];
        };
        assert.deepEqual(databases.databases.map((db) => db.name), ["shop"]);
      });

      await t.step("the database page lists tables with counts, keys and views", async () => {
        const db = await json("/shop.json") as {
          tables: { name: string; count: number; primary_keys: string[] }[];
          views: { name: string }[];
        };
        const tables = Object.fromEntries(db.tables.map((table) => [table.name, table]));
        assert.deepEqual(Object.keys(tables).sort(), ["items", "loose", "many", "orders", "stock"]);
        assert.equal(tables.items.count, 3);
        assert.deepEqual(tables.stock.primary_keys, ["shop", "item_id"]);
        assert.deepEqual(db.views.map((view) => view.name), ["cheap"]);
        assert.match(await html("/shop"), /orders/);
      });

      await t.step("table JSON maps values as a SQLite file would hold them", async () => {
        const table = await json("/shop/items.json?_sort=id") as {
          rows: Record<string, unknown>[];
        };
        const { big: _big, ...first } = table.rows[0];
        assert.deepEqual(first, {
          id: 1,
          name: "apple",
          price: 1.5,
          tags: '["red","fruit"]',
          meta: '{"a": 1}',
          added: "2024-01-02",
          on_sale: 1,
        });
        const text = (await svc.client.get("/shop/items.json?_sort=id&_shape=array")).text;
        // A bigint beyond 2^53 is written exactly.
        assert.match(text, /"big":9007199254740993\b/);
        assert.match(await html("/shop/items"), /apple/);
      });

      await t.step("labels through foreign keys", async () => {
        const orders = await json("/shop/orders.json?_labels=on&_sort=id") as {
          rows: { item_id: { value: number; label: string } }[];
        };
        assert.deepEqual(orders.rows[0].item_id, { value: 1, label: "apple" });
      });

      await t.step("row pages by a single and by a compound key", async () => {
        const row = await json("/shop/items/2.json") as { rows: { name: string }[] };
        assert.equal(row.rows[0].name, "pear");
        assert.match(await html("/shop/items/2"), /pear/);
        const compound = await json("/shop/stock/north,2.json") as { rows: { count: number }[] };
        assert.equal(compound.rows[0].count, 0);
        assert.equal((await svc.client.get("/shop/items/99.json")).status, 404);
        // Not a value of the key's type: no such row, not a server error.
        assert.equal((await svc.client.get("/shop/items/abc.json")).status, 404);
      });

      await t.step("a table without a primary key has no row pages", async () => {
        const response = await svc.client.get("/shop/loose/1.json");
        assert.equal(response.status, 404);
        assert.match(response.text, /no primary key/);
      });

      await t.step("custom SQL with named parameters, and a canned query", async () => {
        const query = await json(
          "/shop/-/query.json?sql=" +
            encodeURIComponent("select name, price::text as p from items where id = :id") +
            "&id=3",
        ) as { rows: unknown[] };
        assert.deepEqual(query.rows, [{ name: "fig", p: "4.00" }]);
        const canned = await json("/shop/by_name.json?name=pear") as { rows: unknown[] };
        assert.deepEqual(canned.rows, [{ id: 2, name: "pear" }]);
        assert.match(await html("/shop/by_name?name=pear"), /pear/);
        assert.match(await html("/shop/-/query?sql=select+1+as+one"), /one/);
      });

      await t.step("views read like tables", async () => {
        const view = await json("/shop/cheap.json") as { rows: unknown[] };
        assert.deepEqual(view.rows, [{ id: 1, name: "apple" }]);
      });

      await t.step("facets: a column, a date column and an array column", async () => {
        type Facets = { facet_results: { results: Record<string, { results: unknown[] }> } };
        const body = await json(
          "/shop/items.json?_facet=on_sale&_facet_date=added&_facet_array=tags",
        ) as unknown as Facets;
        const values = (name: string) =>
          (body.facet_results.results[name].results as { value: unknown; count: number }[])
            .map((r) => [r.value, r.count]);
        assert.deepEqual(values("on_sale"), [[0, 1], [1, 1]]);
        assert.deepEqual(values("added"), [["2024-01-02", 1], ["2024-02-03", 1]]);
        assert.deepEqual(values("tags"), [["fruit", 1], ["green", 1], ["red", 1]]);
      });

      await t.step("a streamed export sends every row through a server-side cursor", async () => {
        const response = await svc.client.get("/shop/many.csv?_stream=on");
        assert.equal(response.status, 200);
        const lines = response.text.trim().split(/\r?\n/);
        assert.equal(lines.length, 12001);
        assert.equal(lines[12000], "12000,24000");
      });

      await t.step("CSV export of a table", async () => {
        const response = await svc.client.get("/shop/orders.csv?_sort=id");
        assert.equal(response.status, 200);
        assert.equal(response.text.trim().split(/\r?\n/)[1], "10,1,3");
      });
      await t.step("the history page says what is and is not recorded on PostgreSQL", async () => {
        const page = await html("/shop/-/history");
        assert.match(page, /Not recorded on PostgreSQL: write SQL and writable\s+canned queries/);
        assert.doesNotMatch(page, /Recording is switched off|writing to the database file/);
        assert.match(page, /No changes recorded here yet\./);
      });
      await t.step("a filter value that does not fit its column is an invalid filter", async () => {
        // PostgreSQL refuses "abc" for an int column where SQLite answers no rows: a 400 that
        // says a filter is wrong, not "Invalid SQL" when the visitor wrote none.
        for (const path of ["/shop/items.json?id=abc", "/shop/items.json?added__gt=someday"]) {
          const response = await svc.client.get(path);
          assert.equal(response.status, 400, path);
          const body = response.json<{ title: string; error: string }>();
          assert.equal(body.title, "Invalid filter", path);
          assert.match(body.error, /^A filter's value does not fit its column's type: .+"/, path);
        }
        const page = await svc.client.get("/shop/items.csv?_stream=on&id=abc");
        assert.equal(page.status, 400);
        assert.match(page.text, /A filter(&#39;|')s value does not fit its column/);
      });
      await t.step(
        "`vitrine URL`, --postgres NAME=URL and --schema on the command line",
        async () => {
          // The URL's options reach the driver: this server has no TLS.
          const tls = await run([`${cluster.url("app")}?sslmode=require`, "--get", "/"]);
          assert.equal(tls.code, 1);
          assert.match(tls.out + tls.err, /cannot reach PostgreSQL database "app".*SSL/i);
          const plain = await run([
            `${cluster.url("app")}?sslmode=disable&max=2`,
            "--get",
            "/-/databases.json",
          ]);
          assert.equal(plain.code, 0, plain.err);
          assert.deepEqual(JSON.parse(plain.out).databases.map((db: { name: string }) => db.name), [
            "app",
          ]);
          const both = await run([
            "--postgres",
            `mine=${cluster.url("app")}`,
            "--schema",
            "public,extra",
            "--get",
            "/mine.json",
          ]);
          assert.equal(both.code, 0, both.err);
          const names = JSON.parse(both.out).tables.map((table: { name: string }) => table.name);
          assert.ok(names.includes("public.items"), names.join());
          assert.ok(names.includes("extra.notes"), names.join());
          const row = await run([
            "--postgres",
            `mine=${cluster.url("app")}`,
            "--schema",
            "public",
            "--schema",
            "extra",
            "--get",
            "/mine/extra~2Enotes/1.json",
          ]);
          assert.equal(row.code, 0, row.err);
          assert.deepEqual(JSON.parse(row.out).rows, [{ id: 1, body: "hello" }]);
        },
      );
    } finally {
      await svc.close();
      await cluster.stop();
    }
  },
});
