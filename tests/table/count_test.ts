import assert from "node:assert/strict";
import { type CountRunner, countWithFallback } from "../../src/table/count.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import { openShop, SHOP_TABLES, tableRequest } from "./_shop.ts";

const interrupted = () =>
  Object.assign(new Error("SQL query took too long"), { name: "QueryInterrupted" });

/** A runner over the shop that times out on every count not capped below `fitsBelow` rows. */
function runner(fitsBelow: number): { run: CountRunner; sqls: string[] } {
  const db = openShop();
  const sqls: string[] = [];
  const run: CountRunner = (sql, params) => {
    sqls.push(sql);
    const cap = /limit (\d+)\)$/.exec(sql);
    if (!cap || Number(cap[1]) >= fitsBelow) return Promise.reject(interrupted());
    const row = db.prepare(sql).get(params as Record<string, string>) as Record<string, number>;
    return Promise.resolve(Object.values(row)[0]);
  };
  return { run, sqls };
}

const products = buildTableQuery({
  table: SHOP_TABLES.products,
  request: tableRequest("price__gt=5"),
});

Deno.test("a timed-out count falls back to a capped lower bound", async () => {
  const { run, sqls } = runner(Infinity);
  assert.deepEqual(await countWithFallback(run, products.count_from, products.from_params, [3]), {
    count: 3,
    truncated: true,
  });
  assert.deepEqual(sqls, [
    'select count(*) from products where "price" > :p0',
    'select count(*) from (select 1 from products where "price" > :p0 limit 3)',
  ]);
});

Deno.test("a capped count below its cap is exact; smaller caps are tried in turn", async () => {
  // 6 products cost more than 5: under a cap of 100 the count is complete.
  const exact = await countWithFallback(
    runner(Infinity).run,
    products.count_from,
    products.from_params,
    [100],
  );
  assert.deepEqual(exact, { count: 6, truncated: false });
  const { run, sqls } = runner(50);
  assert.deepEqual(
    await countWithFallback(run, products.count_from, products.from_params, [100, 2]),
    {
      count: 2,
      truncated: true,
    },
  );
  assert.equal(sqls.length, 3);
  assert.deepEqual(
    await countWithFallback(runner(1).run, products.count_from, products.from_params, [100, 2]),
    { count: null, truncated: true },
  );
});

Deno.test("a fast count is exact; other errors propagate", async () => {
  const db = openShop();
  const run: CountRunner = (sql, params) =>
    Promise.resolve(
      Object.values(db.prepare(sql).get(params as Record<string, string>)!)[0] as number,
    );
  assert.deepEqual(await countWithFallback(run, products.count_from, products.from_params), {
    count: 6,
    truncated: false,
  });
  await assert.rejects(
    countWithFallback(() => Promise.reject(new Error("boom")), products.count_from, {}),
    /boom/,
  );
});
