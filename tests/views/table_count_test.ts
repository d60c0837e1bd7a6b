/** `count_truncated`: a count that runs out of time reports a capped lower bound, shown "≥N". */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { withTrace } from "../../src/util/trace.ts";

/** Shop plus 2M rows whose `like` count takes far longer than the page or a capped count. */
function bigService(): Service {
  const path = buildShopDb();
  const conn = Connection.open(path, { mode: "rwc" });
  try {
    conn.exec(`create table big (id integer primary key, s text);
      with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000)
      insert into big (s) select 'row ' || x from c;`);
  } finally {
    conn.close();
  }
  // 15ms: the full count needs ~80ms, the first page and a 10,000-row capped count under 1ms.
  return new Service({
    files: [path],
    metadata: SHOP_METADATA,
    settings: { sql_time_limit_ms: 15, suggest_facets: false },
  });
}

Deno.test("a count past the time limit is a lower bound: JSON and the ≥N heading", async () => {
  await using svc = bigService();
  // Warm the workers and the page cache, so only the count's own work meets the limit.
  await svc.client.get("/shop/big.json?_size=1&_nocount=1");
  const body = (await svc.client.get(
    "/shop/big.json?s__contains=row&_extra=count,count_truncated&_size=1",
  )).json();
  // 10,000 normally; 1,000 if a loaded machine pushed the first cap past the limit too.
  assert.ok([10000, 1000].includes(body.count), String(body.count));
  assert.equal(body.count_truncated, true);
  const html = (await svc.client.get("/shop/big?s__contains=row&_size=1")).text;
  assert.match(html, /&ge;1(0)?,000 rows where s contains/);
  // A quick count stays exact.
  const small = (await svc.client.get("/shop/big.json?id__lt=4&_extra=count,count_truncated"))
    .json();
  assert.deepEqual([small.count, small.count_truncated], [3, false]);
});

/** The SQL a request runs, from a trace around it. */
async function sqlOf(svc: Service, path: string): Promise<string[]> {
  const { result, traces } = await withTrace(() => svc.client.get(path));
  assert.equal(result.status, 200);
  return traces.filter((t) => t.type === "sql").map((t) => String(t.sql));
}

Deno.test("an immutable table's unfiltered count runs once; filtered counts run each time", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const first = await svc.client.get("/shop/products.json?_extra=count");
  const again = await sqlOf(svc, "/shop/products.json?_extra=count");
  assert.equal(again.filter((sql) => sql.startsWith("select count(*)")).length, 0);
  assert.equal(
    (await svc.client.get("/shop/products.json?_extra=count")).json().count,
    first.json().count,
  );
  const filtered = await sqlOf(svc, "/shop/products.json?_extra=count&id__gt=1");
  assert.equal(filtered.filter((sql) => sql.startsWith("select count(*)")).length, 1);
});

Deno.test("a mutable table's count follows writes", async () => {
  const path = buildShopDb();
  await using svc = new Service({ files: [path], metadata: SHOP_METADATA });
  const before = (await svc.client.get("/shop/log.json?_extra=count")).json().count;
  await svc.get_database("shop").execute_write("insert into log (message) values ('x')");
  const after = (await svc.client.get("/shop/log.json?_extra=count")).json().count;
  assert.equal(after, before + 1);
});

Deno.test("the table page knows its facet columns and compound keys without probe queries", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  await svc.client.get("/shop/products");
  const sql = await sqlOf(svc, "/shop/products");
  assert.deepEqual(sql.filter((s) => / limit 0$/.test(s) || s.includes("pragma_")), []);
});
