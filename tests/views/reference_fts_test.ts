/**
 * Issue 16 class 4: full-text virtual tables and their shadow tables as the reference shows them,
 * on its FTS fixtures (FTS4, FTS5 and FTS3 indexes of `searchable`) — the hidden columns
 * `table_xinfo` lists (the table-named column, `docid`, `__langid`, `rank`) in JSON, CSV and HTML,
 * and shadow-table BLOBs that happen to be valid UTF-8.
 */
import assert from "node:assert/strict";
import { referenceFtsService } from "../fixtures/reference_fts.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

const headings = (html: string) =>
  [...html.matchAll(/<th [^>]*data-column="([^"]*)"/g)].map((m) => m[1]);
const lines = (text: string) => text.split("\r\n").filter((line) => line !== "");

Deno.test("an FTS4 table's JSON has rowid, its columns and the hidden searchable_fts, docid, __langid", async () => {
  await using svc = referenceFtsService();
  const response = await svc.client.get("/fixtures/searchable_fts.json?_extra=columns");
  assert.equal(response.status, 200);
  const body = response.json();
  assert.deepEqual(body.columns, [
    "rowid",
    "text1",
    "text2",
    "name with . and spaces",
    "searchable_fts",
    "docid",
    "__langid",
  ]);
  assert.deepEqual(body.rows, [
    {
      rowid: 1,
      text1: "barry cat",
      text2: "terry dog",
      "name with . and spaces": "panther",
      searchable_fts: null,
      docid: 1,
      __langid: 0,
    },
    {
      rowid: 2,
      text1: "terry dog",
      text2: "sara weasel",
      "name with . and spaces": "puma",
      searchable_fts: null,
      docid: 2,
      __langid: 0,
    },
  ]);
  // The hidden columns are ordinary columns of the page: selectable, sortable, filterable.
  const picked = (await svc.client.get(
    "/fixtures/searchable_fts.json?_col=docid&_sort_desc=docid&__langid__exact=0&_shape=array",
  )).json();
  assert.deepEqual(picked, [{ rowid: 2, docid: 2 }, { rowid: 1, docid: 1 }]);
  // The row page selects `rowid, *`, which leaves the hidden columns out, as the reference's does.
  const row = (await svc.client.get("/fixtures/searchable_fts/1.json")).json();
  assert.deepEqual(row.rows, [
    { rowid: 1, text1: "barry cat", text2: "terry dog", "name with . and spaces": "panther" },
  ]);
});

Deno.test("an FTS5 table's JSON ends with the hidden searchable_fts and rank", async () => {
  await using svc = referenceFtsService();
  const body = (await svc.client.get("/fts5/searchable_fts.json?_extra=columns")).json();
  assert.deepEqual(body.columns, [
    "rowid",
    "text1",
    "text2",
    "name with . and spaces",
    "searchable_fts",
    "rank",
  ]);
  assert.deepEqual(body.rows.map((r: Record<string, unknown>) => [r.rowid, r.text1, r.rank]), [
    [1, "barry cat", null],
    [2, "terry dog", null],
  ]);
  // FTS5 answers the table-named column with its cursor's number, an integer.
  for (const row of body.rows) assert.equal(typeof row.searchable_fts, "number");
  const found = (await svc.client.get("/fts5/searchable_fts.json?_search=weasel&_shape=array"))
    .json();
  assert.deepEqual(found.map((r: Record<string, unknown>) => r.rowid), [2]);
});

Deno.test("an FTS3 table (the reference's extra database) lists content, searchable_fts, docid, __langid", async () => {
  await using svc = referenceFtsService();
  // FTS3 has no content= option: it reads `content="searchable"` as a column called content.
  const body = (await svc.client.get("/extra_database/searchable_fts.json?_extra=columns")).json();
  assert.deepEqual(body.columns, [
    "rowid",
    "text1",
    "text2",
    "content",
    "searchable_fts",
    "docid",
    "__langid",
  ]);
  assert.deepEqual(body.rows[1], {
    rowid: 2,
    text1: "terry dog",
    text2: "sara weasel",
    content: null,
    searchable_fts: null,
    docid: 2,
    __langid: 0,
  });
});

Deno.test("the CSV of FTS tables has the same columns, hidden ones included", async () => {
  await using svc = referenceFtsService();
  const fts4 = await svc.client.get("/fixtures/searchable_fts.csv");
  assert.equal(fts4.status, 200);
  assert.equal(
    fts4.text,
    "rowid,text1,text2,name with . and spaces,searchable_fts,docid,__langid\r\n" +
      "1,barry cat,terry dog,panther,,1,0\r\n" +
      "2,terry dog,sara weasel,puma,,2,0\r\n",
  );
  const fts5 = lines((await svc.client.get("/fts5/searchable_fts.csv")).text);
  assert.equal(fts5[0], "rowid,text1,text2,name with . and spaces,searchable_fts,rank");
  assert.match(fts5[1], /^1,barry cat,terry dog,panther,\d+,$/);
  assert.match(fts5[2], /^2,terry dog,sara weasel,puma,\d+,$/);
  const streamed = await svc.client.get("/fixtures/searchable_fts.csv?_stream=on");
  assert.equal(streamed.text, fts4.text);
});

Deno.test("the HTML table of an FTS table heads every column, hidden ones included", async () => {
  await using svc = referenceFtsService();
  const fts4 = await svc.client.get("/fixtures/searchable_fts");
  assert.equal(fts4.status, 200);
  assert.deepEqual(headings(fts4.text), [
    "Link",
    "rowid",
    "text1",
    "text2",
    "name with . and spaces",
    "searchable_fts",
    "docid",
    "__langid",
  ]);
  assert.match(fts4.text, /<td class="col-docid type-int">2<\/td>/);
  const fts5 = (await svc.client.get("/fts5/searchable_fts")).text;
  assert.deepEqual(headings(fts5).slice(-2), ["searchable_fts", "rank"]);
});

Deno.test("the database JSON lists the FTS table's columns and its shadow tables as the reference does", async () => {
  await using svc = referenceFtsService();
  const tables = (await svc.client.get("/fixtures.json")).json().tables;
  const shape = (name: string) => {
    const t = tables.find((t: { name: string }) => t.name === name);
    return [t.columns, t.primary_keys, t.count, t.hidden, t.fts_table];
  };
  assert.deepEqual(shape("searchable"), [
    ["pk", "text1", "text2", "name with . and spaces"],
    ["pk"],
    2,
    false,
    "searchable_fts",
  ]);
  assert.deepEqual(shape("searchable_fts"), [
    ["text1", "text2", "name with . and spaces", "searchable_fts", "docid", "__langid"],
    [],
    2,
    true,
    "searchable_fts",
  ]);
  assert.deepEqual(shape("searchable_fts_docsize"), [["docid", "size"], ["docid"], 2, true, null]);
  assert.deepEqual(shape("searchable_fts_segdir"), [
    ["level", "idx", "start_block", "leaves_end_block", "end_block", "root"],
    ["level", "idx"],
    1,
    true,
    null,
  ]);
  assert.deepEqual(shape("searchable_fts_segments"), [
    ["blockid", "block"],
    ["blockid"],
    0,
    true,
    null,
  ]);
  assert.deepEqual(shape("searchable_fts_stat"), [["id", "value"], ["id"], 1, true, null]);
  const fts5 = (await svc.client.get("/fts5.json")).json().tables;
  assert.deepEqual(
    fts5.filter((t: { hidden: boolean }) => t.hidden).map((
      t: { name: string; columns: string[] },
    ) => [
      t.name,
      t.columns,
    ]),
    [
      ["searchable_fts", ["text1", "text2", "name with . and spaces", "searchable_fts", "rank"]],
      ["searchable_fts_config", ["k", "v"]],
      ["searchable_fts_data", ["id", "block"]],
      ["searchable_fts_docsize", ["id", "sz"]],
      ["searchable_fts_idx", ["segid", "term", "pgno"]],
    ],
  );
});

Deno.test("shadow-table BLOBs that are valid UTF-8 stay BLOBs: a download link, a .blob URL, base64", async () => {
  await using svc = referenceFtsService();
  // searchable_fts_stat.value is the five bytes 02 04 04 02 31: valid UTF-8, but a BLOB.
  const stat = await svc.client.get("/fixtures/searchable_fts_stat/0.blob?_blob_column=value");
  assert.deepEqual([...stat.content], [2, 4, 4, 2, 0x31]);
  const html = (await svc.client.get("/fixtures/searchable_fts_stat")).text;
  assert.match(
    html,
    /<a class="blob-download" href="\/fixtures\/searchable_fts_stat\/0\.blob\?_blob_column=value">&lt;Binary:&nbsp;5&nbsp;bytes&gt;<\/a>/,
  );
  assert.equal(
    (await svc.client.get("/fixtures/searchable_fts_stat.csv")).text,
    "id,value\r\n0,http://localhost/fixtures/searchable_fts_stat/0.blob?_blob_column=value\r\n",
  );
  const docsize = (await svc.client.get("/fixtures/searchable_fts_docsize.csv")).text;
  assert.deepEqual(lines(docsize), [
    "docid,size",
    "1,http://localhost/fixtures/searchable_fts_docsize/1.blob?_blob_column=size",
    "2,http://localhost/fixtures/searchable_fts_docsize/2.blob?_blob_column=size",
  ]);
  // JSON keeps the type: base64, as the reference documents it (see "Deliberate differences").
  const json = (await svc.client.get("/fixtures/searchable_fts_stat.json?_shape=array")).json();
  assert.deepEqual(json, [{ id: 0, value: { $base64: true, encoded: "AgQEAjE=" } }]);
  const row = (await svc.client.get("/fixtures/searchable_fts_stat/0.json")).json();
  assert.deepEqual(row.rows, [{ id: 0, value: { $base64: true, encoded: "AgQEAjE=" } }]);
  const compound = (await svc.client.get("/fixtures/searchable_fts_segdir.csv")).text;
  assert.match(
    lines(compound)[1],
    /^0,0,0,0,0 \d+,"http:\/\/localhost\/fixtures\/searchable_fts_segdir\/0,0\.blob\?_blob_column=root"$/,
  );
});

Deno.test("generated columns, hidden from table_info, are columns of the table page too", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-generated-" });
  const conn = Connection.open(`${dir}/gen.db`, { mode: "rwc" });
  conn.exec(
    `create table g (a integer, doubled integer as (a * 2), tripled integer as (a * 3) stored);
    insert into g (a) values (1), (2);`,
  );
  conn.close();
  await using svc = new Service({ files: [`${dir}/gen.db`] });
  const body = (await svc.client.get("/gen/g.json?_extra=columns")).json();
  assert.deepEqual(body.columns, ["rowid", "a", "doubled", "tripled"]);
  assert.deepEqual(body.rows[1], { rowid: 2, a: 2, doubled: 4, tripled: 6 });
  assert.equal(
    (await svc.client.get("/gen/g.csv")).text,
    "rowid,a,doubled,tripled\r\n1,1,2,3\r\n2,2,4,6\r\n",
  );
  const sorted = (await svc.client.get("/gen/g.json?_sort_desc=doubled&_shape=arrayfirst")).json();
  assert.deepEqual(sorted, [2, 1]);
});
