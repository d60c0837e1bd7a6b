import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";

Deno.test("--crossdb lets /_memory join tables of two attached databases", async () => {
  const dir = Deno.makeTempDirSync();
  const shop = buildShopDb(dir);
  const other = `${dir}/stock.db`;
  const conn = Connection.open(other, { mode: "rwc" });
  conn.exec(
    "create table stock (product_id integer, units integer); insert into stock values (1, 40), (2, 7);",
  );
  conn.close();
  await using svc = new Service({ files: [shop, other], crossdb: true, metadata: SHOP_METADATA });
  const db = svc.get_database("_memory");
  const results = await db.execute(
    "select p.name, s.units from [shop].products p join [stock].stock s on s.product_id = p.id order by p.id",
  );
  assert.deepEqual(results.rows.map((row) => [...row]), [["Chef knife", 40], [
    "Wooden spoon",
    7,
  ]]);
});

Deno.test("without --crossdb there is no _memory database next to files", async () => {
  await using svc = new Service({ files: [buildShopDb()] });
  assert.deepEqual([...svc.databases.keys()], ["shop"]);
});

Deno.test("/_memory joins attached databases over HTTP and its page names them", async () => {
  const dir = Deno.makeTempDirSync();
  const shop = buildShopDb(dir);
  const other = `${dir}/stock.db`;
  const conn = Connection.open(other, { mode: "rwc" });
  conn.exec(
    "create table stock (product_id integer, units integer); insert into stock values (1, 40);",
  );
  conn.close();
  await using svc = new Service({ files: [shop, other], crossdb: true, metadata: SHOP_METADATA });
  const sql = "select p.name, s.units from [shop].products p join [stock].stock s " +
    "on s.product_id = p.id";
  const response = await svc.client.get(`/_memory.json?sql=${encodeURIComponent(sql)}`);
  assert.deepEqual(response.json(), {
    ok: true,
    rows: [{ name: "Chef knife", units: 40 }],
    truncated: false,
  });
  const page = (await svc.client.get("/_memory")).text;
  assert.match(
    page,
    /Attached for cross-database queries: <code>\[shop\]<\/code>, <code>\[stock\]<\/code>/,
  );
  // Other databases' pages carry no such hint.
  assert.doesNotMatch((await svc.client.get("/shop")).text, /Attached for cross-database/);
});

Deno.test("--crossdb attaches at most ten databases (SQLite's limit)", async () => {
  const dir = Deno.makeTempDirSync();
  const files = [];
  for (let i = 1; i <= 12; i++) {
    const name = `d${String(i).padStart(2, "0")}`;
    const conn = Connection.open(`${dir}/${name}.db`, { mode: "rwc" });
    conn.exec(`create table t${i} (x); insert into t${i} values (${i});`);
    conn.close();
    files.push(`${dir}/${name}.db`);
  }
  await using svc = new Service({ files, crossdb: true });
  const db = svc.get_database("_memory");
  const attached = await db.execute("select name from pragma_database_list where name != 'main'");
  assert.equal(attached.rows.length, 10);
  assert.equal((await db.execute("select x from [d10].t10")).single_value(), 10);
  await assert.rejects(() => db.execute("select x from [d12].t12", [], { log_sql_errors: false }));
});
