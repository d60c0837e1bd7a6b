/**
 * Offset pages of a query whose order is not total are read in one order the server adds: the
 * query's own ORDER BY terms, then every result column. Read page by page, such a result gives
 * every row exactly once, in the same order on every run, and says the order was added.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

function buildDb(rows: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stable-order-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table t (id integer primary key, name text, grp integer);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into t select i, 'row ' || i, i % 7 from n;`);
  conn.close();
  return path;
}

type Row = Record<string, unknown>;

/** Every row of `sql` read page by page, and the `order_added` of each page. */
async function readAll(svc: Service, sql: string): Promise<{ rows: Row[]; added: unknown[] }> {
  const rows: Row[] = [];
  const added: unknown[] = [];
  let url: string | null = `/data/-/query.json?sql=${encodeURIComponent(sql)}`;
  while (url) {
    const response = await svc.client.get(url);
    assert.equal(response.status, 200, response.text);
    const body = response.json() as { rows: Row[]; next_url?: string; order_added?: boolean };
    rows.push(...body.rows);
    added.push(body.order_added);
    url = body.next_url ? new URL(body.next_url).pathname + new URL(body.next_url).search : null;
  }
  return { rows, added };
}

const byText = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;

Deno.test("a query with ties is paged in its order, ties broken by every column, each row once", async () => {
  await using svc = new Service({
    immutables: [buildDb(5000)],
    settings: { max_returned_rows: 1000 },
  });
  const sql = "select grp, name from t order by grp";
  const first = await readAll(svc, sql);
  assert.equal(first.rows.length, 5000);
  assert.equal(new Set(first.rows.map((row) => row.name)).size, 5000, "every row exactly once");
  assert.deepEqual(first.added, [true, true, true, true, true]);
  // The user's order first (grp), then the added one (grp again, then name as text).
  const expected = [...first.rows].sort((a, b) =>
    Number(a.grp) - Number(b.grp) || byText(String(a.name), String(b.name))
  );
  assert.deepEqual(first.rows, expected);
  assert.deepEqual((await readAll(svc, sql)).rows, first.rows, "the same order on every run");
  // A descending term keeps its direction; the added ones break its ties ascending.
  const desc = await readAll(svc, "select name, grp from t order by 2 desc");
  assert.deepEqual(desc.rows.map((row) => row.grp), expected.map((row) => row.grp).reverse());
});

Deno.test("a query without ORDER BY is paged in the order of every column, identical rows counted", async () => {
  await using svc = new Service({
    immutables: [buildDb(5000)],
    settings: { max_returned_rows: 1000 },
  });
  const names = await readAll(svc, "select name, grp from t");
  assert.deepEqual(
    names.rows.map((row) => row.name),
    Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).sort(byText),
  );
  assert.deepEqual(names.added, [true, true, true, true, true]);
  // Identical rows: each value as many times as the table holds it.
  const groups = await readAll(svc, "select grp from t");
  const counts = new Map<unknown, number>();
  for (const row of groups.rows) counts.set(row.grp, (counts.get(row.grp) ?? 0) + 1);
  assert.deepEqual(
    [...counts],
    [0, 1, 2, 3, 4, 5, 6].map((g) => [g, g === 0 ? 714 : g <= 2 ? 715 : 714]),
  );
  const html =
    (await svc.client.get(`/data/-/query?sql=${encodeURIComponent("select grp from t")}`)).text;
  assert.match(html, /This query has no ORDER BY, so the server orders its rows by every column/);
});

Deno.test("a total order, an order the server cannot restate and a short result are unchanged", async () => {
  await using svc = new Service({
    immutables: [buildDb(2500)],
    settings: { max_returned_rows: 1000 },
  });
  const total = await readAll(svc, "select id, name from t order by name desc, id");
  assert.deepEqual(total.added, [undefined, undefined, undefined]);
  assert.deepEqual(
    total.rows.map((row) => row.name),
    Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).sort(byText).reverse(),
  );
  // An expression in ORDER BY: sorting again could change it, so the pages go as SQLite reads.
  const expression = await readAll(svc, "select id, grp from t order by grp * 2");
  assert.deepEqual(expression.added, [undefined, undefined, undefined]);
  assert.equal(new Set(expression.rows.map((row) => row.id)).size, 2500);
  const html = (await svc.client.get(
    `/data/-/query?sql=${encodeURIComponent("select id, grp from t order by grp * 2")}`,
  )).text;
  assert.doesNotMatch(html, /the server breaks them/);
  const short = (await svc.client.get("/data/-/query.json?sql=select+grp+from+t+limit+5")).json();
  assert.deepEqual(Object.keys(short as object), ["ok", "rows", "truncated"]);
  const ties = await svc.client.get(
    `/data/-/query?sql=${encodeURIComponent("select grp, name from t order by grp")}`,
  );
  assert.match(
    ties.text,
    /This query&#39;s ORDER BY leaves ties, so the server breaks them|This query's ORDER BY leaves ties, so the server breaks them/,
  );
});

Deno.test("a result too big to sort in its time limit goes on in the order SQLite reads it", async () => {
  // Sorting 1,000,000 rows by every column takes far longer than 150 ms; reading 1,001 does not.
  await using svc = new Service({
    immutables: [buildDb(1_000_000)],
    settings: { max_returned_rows: 1000, sql_time_limit_ms: 150 },
  });
  const response = await svc.client.get(
    `/data/-/query.json?sql=${encodeURIComponent("select name, grp from t")}`,
  );
  assert.equal(response.status, 200, response.text);
  const body = response.json() as { rows: Row[]; next?: string; order_added?: boolean };
  assert.equal(body.rows.length, 1000);
  assert.equal(body.order_added, undefined, "no order is claimed that was not used");
  assert.equal(body.next, "u1000");
  // The next page is read as written too, not sorted (which would fail at the limit).
  const second = await svc.client.get(`/data/-/query.json?sql=select+name,+grp+from+t&_next=u1000`);
  assert.equal(second.status, 200, second.text);
  const page = second.json() as { rows: Row[]; next?: string };
  assert.equal(page.rows[0].name, "row 1001");
  assert.equal(page.next, "u2000");
});
