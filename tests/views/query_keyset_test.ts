/**
 * Query results whose ORDER BY ends with a unique key go on by key: the `next` token (`k…`)
 * carries the last row's ORDER BY values and the next page is read after them, with no OFFSET,
 * so a row inserted between pages is neither read twice nor skipped. Other orders go on by
 * offset, and their HTML page says so.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

function buildDb(rows: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-query-keyset-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table t (id integer primary key, name text, grp integer,
      code text not null unique, maybe text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into t select i, 'row ' || i, i % 7, printf('c%06d', i),
      case when i % 3 = 0 then null else i % 5 end from n;
    create table u (id integer primary key, t_id integer);
    -- Not the rowid (a quirk of DESC): its key takes NULLs, twice here, so it is not total.
    create table quirk (id integer primary key desc, v);
    insert into quirk select case when id <= 2 then null else id end, id from t;
    insert into u select id, id % 10 from t;`);
  conn.close();
  return path;
}

function service(path: string, options: { mutable?: boolean; trace?: boolean } = {}): Service {
  return new Service({
    ...(options.mutable ? { files: [path] } : { immutables: [path] }),
    settings: { max_returned_rows: 1000, ...(options.trace ? { trace_debug: true } : {}) },
    metadata: {
      databases: {
        data: { queries: { by_group: "select id, name from t where grp >= :min order by id" } },
      },
    },
  });
}

interface Page {
  rows: Record<string, unknown>[];
  next?: string;
  next_url?: string;
  _trace?: { traces: { type: string; sql?: string }[] };
}

async function page(svc: Service, url: string): Promise<Page> {
  const response = await svc.client.get(url);
  assert.equal(response.status, 200, response.text);
  return response.json() as Page;
}

const local = (url: string) => new URL(url).pathname + new URL(url).search;

/** Follows next_url to the end: every page's body. */
async function readAll(svc: Service, first: string): Promise<Page[]> {
  const pages: Page[] = [];
  let url: string | null = first;
  while (url) {
    const body = await page(svc, url);
    pages.push(body);
    url = body.next_url ? local(body.next_url) : null;
  }
  return pages;
}

const q = (sql: string) => `/data/-/query.json?sql=${encodeURIComponent(sql)}`;

Deno.test("a 5,000-row query ordered by its key is read by key, every row once, no OFFSET after the first page", async () => {
  await using svc = service(buildDb(5000), { trace: true });
  const pages = await readAll(svc, q("select id, name from t order by id") + "&_trace=1");
  assert.deepEqual(pages.map((p) => p.rows.length), [1000, 1000, 1000, 1000, 1000]);
  const ids = pages.flatMap((p) => p.rows.map((row) => row.id));
  assert.deepEqual(ids, Array.from({ length: 5000 }, (_, i) => i + 1));
  for (const body of pages.slice(0, -1)) assert.match(body.next!, /^k\d+\./, "a key token");
  for (const body of pages.slice(1)) {
    const reads = body._trace!.traces.filter((t) => t.sql?.includes("order by id"));
    assert.ok(reads.length, "the page's SQL is traced");
    for (const read of reads) assert.doesNotMatch(read.sql!, /\boffset\b/i, read.sql);
  }
});

Deno.test("descending, several keys, NULLs and a unique NOT NULL column page by key", async () => {
  const path = buildDb(3500);
  await using svc = service(path);
  const cases: [string, (a: Record<string, unknown>, b: Record<string, unknown>) => boolean][] = [
    ["select id from t order by id desc", (a, b) => (a.id as number) > (b.id as number)],
    ["select grp, id from t order by grp desc, id", () => true],
    ["select maybe, id from t order by maybe, id desc", () => true],
    ["select maybe, id from t order by maybe desc nulls first, id", () => true],
    ["select code, id from t order by code", (a, b) => String(a.code) < String(b.code)],
    ["select id, name from t where grp < 6 order by 1", () => true],
  ];
  for (const [sql, ordered] of cases) {
    const pages = await readAll(svc, q(sql));
    assert.match(pages[0].next ?? "", /^k/, sql);
    const rows = pages.flatMap((p) => p.rows);
    assert.equal(rows.length, new Set(rows.map((row) => row.id)).size, `${sql}: each row once`);
    const direct = Connection.open(path, { mode: "ro" });
    const expected = direct.prepare(sql).all().map((row) =>
      row[sql.startsWith("select id") ? 0 : 1]
    );
    direct.close();
    assert.deepEqual(rows.map((row) => row.id), expected, `${sql}: the query's own order`);
    for (let i = 1; i < rows.length; i++) assert.ok(ordered(rows[i - 1], rows[i]), sql);
  }
});

Deno.test("orders that are not provably total page by offset, and the HTML page says so", async () => {
  const path = buildDb(5000);
  await using svc = service(path);
  for (
    const sql of [
      "select id, grp from t order by grp",
      "select t.id, u.id as uid from t join u on u.t_id = t.id order by t.id",
      "select id from t order by id limit 4000",
      "select id, grp from t order by grp, id collate nocase",
      "select id, v from quirk order by id",
    ]
  ) {
    const pages = await readAll(svc, q(sql));
    assert.match(pages[0].next ?? "", /^\d+$/, `${sql}: an offset token`);
    const rows = pages.flatMap((p) => p.rows);
    const direct = Connection.open(path, { mode: "ro" });
    const count = Number(direct.prepare(`select count(*) from (${sql})`).all()[0][0]);
    direct.close();
    assert.equal(rows.length, count, sql);
  }
  // Ties the server can break: it adds the order, and says so (query_stable_order_test.ts).
  const html = (await svc.client.get(
    `/data/-/query?sql=${encodeURIComponent("select id, grp from t order by grp")}`,
  )).text;
  assert.match(html, /ORDER BY leaves ties, so the server breaks them by every column/);
  // An order it cannot restate (a COLLATE) is left as it is, and the note says so.
  const collated = (await svc.client.get(
    `/data/-/query?sql=${
      encodeURIComponent("select id, grp from t order by grp, id collate nocase")
    }`,
  )).text;
  assert.match(collated, /does not end with a unique key, so its pages are counted by position/);
  const keyed = (await svc.client.get(
    `/data/-/query?sql=${encodeURIComponent("select id from t order by id")}`,
  )).text;
  assert.doesNotMatch(keyed, /counted by position/);
  const second = keyed.match(/<a href="([^"]+)" rel="next">Next page<\/a>/)![1].replaceAll(
    "&amp;",
    "&",
  );
  assert.match(second, /_next=k1000\./);
  assert.match((await svc.client.get(local(second))).text, /Rows 1,001–2,000 of 5,000/);
});

Deno.test("a row inserted between key pages is neither read twice nor skipped", async () => {
  const path = buildDb(3000);
  await using svc = service(path, { mutable: true });
  const first = await page(svc, q("select id, name from t order by id"));
  assert.match(first.next!, /^k/);
  // Before the page boundary: an offset page would read row 1000 again.
  const writer = Connection.open(path, { mode: "rw" });
  writer.exec("insert into t (id, name, grp, code) values (0, 'early', 0, 'c-early')");
  // After it: it must be read on a later page.
  writer.exec("insert into t (id, name, grp, code) values (4000, 'late', 0, 'c-late')");
  writer.exec("delete from t where id = 2499");
  writer.close();
  const rest = await readAll(svc, local(first.next_url!));
  const ids = [...first.rows, ...rest.flatMap((p) => p.rows)].map((row) => row.id as number);
  assert.equal(ids.length, new Set(ids).size, "no row twice");
  assert.equal(ids[1000], 1001, "the second page starts after the first's last row");
  assert.ok(ids.includes(4000) && !ids.includes(2499) && !ids.includes(0));
  assert.equal(ids.length, 3000);
});

Deno.test("a canned query ordered by its key pages by key and keeps its parameters", async () => {
  await using svc = service(buildDb(5000));
  const pages = await readAll(svc, "/data/by_group.json?min=2");
  assert.ok(pages.slice(0, -1).every((p) => /^k/.test(p.next!)), "key tokens");
  for (const body of pages.slice(0, -1)) assert.match(body.next_url!, /[?&]min=2(&|$)/);
  const ids = pages.flatMap((p) => p.rows.map((row) => row.id as number));
  const expected = Array.from({ length: 5000 }, (_, i) => i + 1).filter((i) => i % 7 >= 2);
  assert.deepEqual(ids, expected);
});

Deno.test("a damaged key token is a 400 with a readable message", async () => {
  await using svc = service(buildDb(1500));
  for (const token of ["k10.!!", "k10.bm90IGpzb24", "kx"]) {
    const response = await svc.client.get(q("select id from t order by id") + `&_next=${token}`);
    assert.equal(response.status, 400, token);
    assert.match(response.text, /_next must be an integer offset or a key token/);
  }
  // A key token on a query whose order is not total (edited SQL) is refused, not misread.
  const first = await page(svc, q("select id from t order by id"));
  const response = await svc.client.get(
    q("select id from t order by grp") + `&_next=${first.next}`,
  );
  assert.equal(response.status, 400);
  assert.match(response.text, /cannot page this query by key/);
});
