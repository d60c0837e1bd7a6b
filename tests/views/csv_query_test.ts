/** CSV of custom SQL and canned queries: `_stream=on` past max_returned_rows, and BLOB cells. */
import assert from "node:assert/strict";
import { pagedQuerySql } from "../../src/views/query/query_stream.ts";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { quietly } from "../fixtures/quietly.ts";

const COUNT_TO_35 =
  "with recursive n(i) as (select 1 union all select i + 1 from n where i < 35)\n" +
  "select i, 'row ' || i as label from n -- thirty-five rows\n;";

const lines = (text: string) => text.trimEnd().split("\r\n");

Deno.test("query CSV with _stream=on returns every row, pages of max_returned_rows", async () => {
  const metadata = structuredClone(SHOP_METADATA);
  metadata.databases.shop.queries.count_to = { sql: COUNT_TO_35 };
  await using svc = shopService({ settings: { max_returned_rows: 10 }, metadata });
  const sql = encodeURIComponent(COUNT_TO_35);
  const first = await svc.client.get(`/shop/-/query.csv?sql=${sql}`);
  assert.equal(lines(first.text).length, 11);
  const streamed = await svc.client.get(`/shop/-/query.csv?sql=${sql}&_stream=on`);
  assert.equal(streamed.status, 200);
  const all = lines(streamed.text);
  assert.equal(all.length, 36);
  assert.deepEqual(all.slice(0, 2), ["i,label", "1,row 1"]);
  assert.deepEqual(
    all.slice(1).map((line) => Number(line.split(",")[0])),
    [
      ...Array(35).keys(),
    ].map((i) => i + 1),
  );
  // The database's own `?sql=` form, TSV and NDJSON stream too.
  const tsv = await svc.client.get(`/shop.tsv?sql=${sql}&_stream=1`);
  assert.equal(lines(tsv.text).length, 36);
  const ndjson = await svc.client.get(`/shop/-/query.ndjson?sql=${sql}&_stream=on`);
  assert.equal(ndjson.text.trimEnd().split("\n").length, 35);
  // Canned queries stream the same way, parameters included.
  const canned = await svc.client.get("/shop/count_to.csv?_stream=on");
  assert.equal(lines(canned.text).length, 36);
  const param = encodeURIComponent("select id from products where price > :min");
  const bound = await svc.client.get(`/shop/-/query.csv?sql=${param}&min=10&_stream=on`);
  assert.equal(bound.text, "id\r\n1\r\n4\r\n6\r\n7\r\n");
});

Deno.test("query streams keep duplicate column names, honour the settings, report errors", async () => {
  {
    await using svc = shopService({ settings: { max_returned_rows: 10, allow_csv_stream: false } });
    const sql = encodeURIComponent(COUNT_TO_35);
    const refused = await svc.client.get(`/shop/-/query.csv?sql=${sql}&_stream=on`);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /CSV streaming is disabled/);
  }
  await using open = shopService({ settings: { max_returned_rows: 10 } });
  const dup = encodeURIComponent("select 1 as a, 2 as a");
  assert.equal(
    (await open.client.get(`/shop/-/query.csv?sql=${dup}&_stream=on`)).text,
    "a,a\r\n1,2\r\n",
  );
  const explain = encodeURIComponent("explain select 1");
  assert.equal(
    (await open.client.get(`/shop/-/query.csv?sql=${explain}&_stream=on`)).status,
    200,
  );
  const bad = await open.client.get(
    `/shop/-/query.csv?sql=${encodeURIComponent("select nope")}&_stream=on`,
  );
  assert.equal(bad.status, 400);
  assert.match(bad.text, /no such column: nope/);
});

Deno.test("max_csv_mb caps a streamed query", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 100, max_csv_mb: 1 } });
  const sql = encodeURIComponent(
    "with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) " +
      "select i, printf('%.100c', 'x') from n",
  );
  const capped = await svc.client.get(`/shop/-/query.csv?sql=${sql}&_stream=on`);
  assert.ok(capped.text.endsWith(`CSV contains more than ${1024 * 1024} bytes`));
});

Deno.test("an error in the middle of a stream fails the body instead of becoming its last line", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 10 } });
  // Rows 1 to 2,999 come out (the first page before the status); row 3,000 fails (abs of the
  // smallest integer overflows). The body is aborted, so reading it fails (over HTTP:
  // tests/render/row_stream_test.ts). Failing in the first page, it is a 400 with the message.
  const failing = (at: number) =>
    encodeURIComponent(
      "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000) " +
        `select i, case when i = ${at} then abs(-9223372036854775808) else i end as v from n`,
    );
  const sql = failing(3000);
  for (const format of ["csv", "ndjson"]) {
    await quietly(() =>
      assert.rejects(svc.client.get(`/shop/-/query.${format}?sql=${sql}&_stream=on`))
    );
  }
  const early = await svc.client.get(`/shop/-/query.csv?sql=${failing(30)}&_stream=on`);
  assert.equal(early.status, 400);
  assert.match(early.text, /integer overflow/);
});

Deno.test("paged SQL wraps the statement safely", () => {
  assert.equal(
    pagedQuerySql("select 1; \n", 20),
    "select * from (\nselect 1\n) limit -1 offset 20",
  );
  assert.equal(pagedQuerySql("/* c */ -- d\n EXPLAIN select 1", 0), null);
});

Deno.test("query CSV BLOBs: download URLs for addressable rows, base64 otherwise", async () => {
  await using svc = shopService();
  await svc.get_database("shop").execute_write_script(`
    create table files (id integer primary key, name text, data blob);
    insert into files values (1, 'one', x'00ff10'), (2, 'two', x'0102');
    create table docs (k1 text, k2 integer, data blob, primary key (k1, k2));
    insert into docs values ('a/b', 2, x'aa');
    create table bare (data blob);
    insert into bare values (x'bb');
  `);
  const csv = async (sql: string) =>
    lines((await svc.client.get(`/shop/-/query.csv?sql=${encodeURIComponent(sql)}`)).text)
      .slice(1);
  assert.deepEqual(await csv("select id, data from files order by id"), [
    "1,http://localhost/shop/files/1.blob?_blob_column=data",
    "2,http://localhost/shop/files/2.blob?_blob_column=data",
  ]);
  assert.deepEqual(await csv("select k1, k2, data from docs"), [
    'a/b,2,"http://localhost/shop/docs/a~2Fb,2.blob?_blob_column=data"',
  ]);
  assert.deepEqual(await csv("select rowid, data from bare"), [
    "1,http://localhost/shop/bare/1.blob?_blob_column=data",
  ]);
  // A join still traces `data` to the one named table that has it and whose key is present.
  assert.deepEqual(await csv("select files.id, files.data from files, bare where files.id = 2"), [
    "2,http://localhost/shop/files/2.blob?_blob_column=data",
  ]);
  // No key in the result, or an alias whose bytes differ from the stored cell: base64.
  assert.deepEqual(await csv("select data from files where id = 1"), ["AP8Q"]);
  assert.deepEqual(await csv("select id, x'0102' as data from files where id = 1"), ["1,AQI="]);
  assert.deepEqual(await csv("select 1 as id, x'ff' as data"), ["1,/w=="]);
  const url = (await csv("select id, data from files where id = 1"))[0].split(",")[1];
  const download = await svc.client.get(url.replace("http://localhost", ""));
  assert.deepEqual(download.content, new Uint8Array([0, 255, 16]));
});

Deno.test("duplicate column names: objects keep the last value, arrays and CSV keep both", async () => {
  await using svc = shopService();
  const sql = encodeURIComponent("select 1 as a, 2 as b, 3 as a");
  const get = (suffix: string) => svc.client.get(`/shop/-/query${suffix}`);
  // Python's dict(zip(columns, row)): first position, last value.
  const objects = { ok: true, rows: [{ a: 3, b: 2 }], truncated: false };
  assert.deepEqual((await get(`.json?sql=${sql}`)).json(), objects);
  assert.deepEqual((await get(`.json?sql=${sql}&_shape=objects`)).json(), objects);
  assert.equal((await get(`.json?sql=${sql}&_shape=array`)).text, '[{"a":3,"b":2}]');
  assert.equal((await get(`.json?sql=${sql}&_shape=array&_nl=on`)).text, '{"a": 3, "b": 2}');
  assert.equal((await get(`.ndjson?sql=${sql}`)).text, '{"a":3,"b":2}\n');
  assert.deepEqual((await get(`.json?sql=${sql}&_shape=arrays`)).json().rows, [[1, 2, 3]]);
  assert.deepEqual((await get(`.json?sql=${sql}&_shape=arrayfirst`)).json(), [1]);
  assert.equal((await get(`.json?sql=${sql}&_shape=object`)).status, 400);
  assert.equal((await get(`.csv?sql=${sql}`)).text, "a,b,a\r\n1,2,3\r\n");
});

Deno.test("a streamed query without a total order gives every row exactly once", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 1000 } });
  await svc.get_database("shop").execute_write_script(`
    create table places (id integer primary key, name text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
    insert into places select i, 'place ' || i from n;
    create view shuffled as select id from places order by random();
  `);
  const sql = encodeURIComponent("select id from places where id <= 20000 order by random()");
  for (
    const url of [
      `/shop/-/query.csv?sql=${sql}&_stream=on`,
      `/shop/-/query.ndjson?sql=${sql}&_stream=on`,
      "/shop/shuffled.csv?_stream=on",
      `/shop/-/query.tsv?sql=${sql}&_stream=on&_header=off`,
    ]
  ) {
    const text = (await svc.client.get(url)).text;
    const ids = url.includes(".ndjson")
      ? text.trimEnd().split("\n").map((line) => JSON.parse(line).id)
      : text.trimEnd().split("\r\n").filter((line) => line !== "id").map(Number);
    assert.equal(ids.length, 20000, url);
    assert.equal(new Set(ids).size, 20000, url);
    // Shuffled indeed: the test would pass for any order, but should see the one it is about.
    assert.notDeepEqual(ids.slice(0, 50), [...Array(50).keys()].map((i) => i + 1), url);
  }
});
