/**
 * Every query result goes on: custom SQL and canned queries longer than `max_returned_rows`
 * answer `next` / `next_url` in JSON and a "Next page" link in HTML, and following them reads
 * every row exactly once.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

function buildDb(rows: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-query-pages-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table t (id integer primary key, name text, grp integer);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into t select i, 'row ' || i, i % 7 from n;`);
  conn.close();
  return path;
}

function service(path: string): Service {
  return new Service({
    immutables: [path],
    settings: { max_returned_rows: 1000 },
    metadata: {
      databases: {
        data: { queries: { by_group: "select id, name from t where grp >= :min" } },
      },
    },
  });
}

/** Follows `next_url` from `first` to the end; returns every id read and the pages' sizes. */
async function readAll(svc: Service, first: string): Promise<{ ids: number[]; pages: number[] }> {
  const ids: number[] = [];
  const pages: number[] = [];
  let url: string | null = first;
  while (url) {
    const response = await svc.client.get(url);
    assert.equal(response.status, 200, response.text);
    const body = response.json() as {
      rows: { id: number }[];
      next?: string;
      next_url?: string;
      truncated: boolean;
    };
    ids.push(...body.rows.map((row) => row.id));
    pages.push(body.rows.length);
    assert.equal(body.truncated, Boolean(body.next_url), "truncated goes with a next page");
    if (body.next_url) {
      assert.equal(response.headers.get("link"), `<${body.next_url}>; rel="next"`);
      url = new URL(body.next_url).pathname + new URL(body.next_url).search;
    } else url = null;
  }
  return { ids, pages };
}

function assertEachOnce(ids: number[], expected: number[]): void {
  assert.equal(ids.length, expected.length, "as many rows as the query returns");
  assert.deepEqual([...ids].sort((a, b) => a - b), [...expected].sort((a, b) => a - b));
}

Deno.test("a custom query over 5,000 rows is read page by page, every row exactly once", async () => {
  const path = buildDb(5000);
  await using svc = service(path);
  const all = Array.from({ length: 5000 }, (_, i) => i + 1);
  // No ORDER BY at all, an ORDER BY on a column with repeats, and a total order.
  for (
    const sql of [
      "select id, name from t",
      "select id, grp from t order by grp",
      "select id from t order by name desc, id",
    ]
  ) {
    const { ids, pages } = await readAll(
      svc,
      `/data/-/query.json?sql=${encodeURIComponent(sql)}`,
    );
    assert.deepEqual(pages, [1000, 1000, 1000, 1000, 1000], sql);
    assertEachOnce(ids, all);
  }
});

Deno.test("a canned query's pages keep its parameters and end with the last row", async () => {
  const path = buildDb(5000);
  await using svc = service(path);
  const expected = Array.from({ length: 5000 }, (_, i) => i + 1).filter((i) => i % 7 >= 3);
  const { ids, pages } = await readAll(svc, "/data/by_group.json?min=3");
  assert.deepEqual(pages, [1000, 1000, expected.length - 2000]);
  assertEachOnce(ids, expected);
});

Deno.test("a result within max_returned_rows has no next page and keeps its shape", async () => {
  const path = buildDb(20);
  await using svc = service(path);
  const body = (await svc.client.get("/data/-/query.json?sql=select+id+from+t")).json();
  assert.deepEqual(Object.keys(body as object), ["ok", "rows", "truncated"]);
});

Deno.test("the HTML page links to the next page and says which rows it shows", async () => {
  const path = buildDb(2500);
  await using svc = service(path);
  const sql = encodeURIComponent("select id, name from t");
  const first = (await svc.client.get(`/data/-/query?sql=${sql}`)).text;
  assert.match(first, /First 1,000 rows of 2,500/);
  assert.match(first, /This query has no ORDER BY, so the server orders its rows by every column/);
  const link = first.match(/<a href="([^"]+)" rel="next">Next page<\/a>/);
  assert.ok(link, "a next-page link");
  const second = await svc.client.get(
    new URL(link[1].replaceAll("&amp;", "&")).pathname +
      new URL(link[1].replaceAll("&amp;", "&")).search,
  );
  assert.equal(second.status, 200);
  assert.match(second.text, /Rows 1,001–2,000 of 2,500/);
  // id is the table's primary key: it links to its row (query_links.ts).
  assert.match(
    second.text,
    /<td class="col-id type-int"><a href="\/data\/t\/1001">1001<\/a><\/td>/,
  );
  const last = (await svc.client.get(`/data/-/query?sql=${sql}&_next=2000`)).text;
  assert.match(last, /Rows 2,001–2,500 of 2,500/);
  assert.doesNotMatch(last, /rel="next"/);
});

Deno.test("a bad _next is a 400 with a readable message", async () => {
  const path = buildDb(20);
  await using svc = service(path);
  const response = await svc.client.get("/data/-/query.json?sql=select+id+from+t&_next=abc");
  assert.equal(response.status, 400);
  assert.match(response.text, /_next must be an integer offset/);
});
