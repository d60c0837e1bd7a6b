import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/connection.ts";
import { ImportError } from "../../../src/db/import/import_error.ts";
import { columnTypes, importText } from "./helpers.ts";

Deno.test("CSV: types come from the data; zip codes and dates stay text; empty is NULL", async () => {
  const { conn, rows } = await importText(
    "id,name,score,zip,day\n1,Ann,1.5,007,2024-01-05\n2,Bob,3,12345,2024-02-01\n3,Cy,,,\n",
  );
  assert.deepEqual(columnTypes(conn), [
    ["id", "INTEGER"],
    ["name", "TEXT"],
    ["score", "FLOAT"],
    ["zip", "TEXT"],
    ["day", "TEXT"],
  ]);
  assert.deepEqual(rows, [
    [1, "Ann", 1.5, "007", "2024-01-05"],
    [2, "Bob", 3, "12345", "2024-02-01"],
    [3, "Cy", null, null, null],
  ]);
});

Deno.test("CSV: quoted fields keep their newlines, delimiters and doubled quotes", async () => {
  const { rows } = await importText('a,b\n"line one\nline two","x, ""y"""\n3,4\n');
  assert.deepEqual(rows, [["line one\nline two", 'x, "y"'], ["3", "4"]]);
});

Deno.test("CSV: a UTF-8 byte-order mark is not part of the first column's name", async () => {
  const { conn, rows } = await importText("\uFEFFname,n\nZoë,1\n");
  assert.deepEqual(columnTypes(conn).map(([name]) => name), ["name", "n"]);
  assert.deepEqual(rows, [["Zoë", 1]]);
});

Deno.test("CSV: Latin-1 / Windows-1252 bytes are detected and read as such", async () => {
  const head = new TextEncoder().encode("city,price\n");
  // "Café" in Latin-1, then "€5" with Windows-1252's euro sign (0x80).
  const body = [0x43, 0x61, 0x66, 0xe9, 0x2c, 0x80, 0x35, 0x0a];
  const { rows } = await importText(new Uint8Array([...head, ...body]));
  assert.deepEqual(rows, [["Café", "€5"]]);
});

Deno.test("CSV: a stray Latin-1 byte after a UTF-8 start is an error, not a replacement", async () => {
  const good = "v\n" + "é\n".repeat(40_000);
  const bytes = new Uint8Array([...new TextEncoder().encode(good), 0xe9, 0x0a]);
  await assert.rejects(
    () => importText(bytes, { name: "x.big" }),
    (error: Error) =>
      error instanceof ImportError && /not valid UTF-8.*--encoding latin-1/.test(error.message),
  );
});

Deno.test("CSV: --encoding names the encoding", async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode("v\n"), 0xe9, 0x0a]);
  const { rows } = await importText(bytes, { encoding: "latin-1" });
  assert.deepEqual(rows, [["é"]]);
  await assert.rejects(() => importText("v\n", { encoding: "klingon" }), /Unknown encoding/);
});

Deno.test("CSV: ragged rows: short ones padded with NULL, long ones an error naming the line", async () => {
  const { rows } = await importText("a,b,c\n1,2\n4,5,6,\n");
  assert.deepEqual(rows, [[1, 2, null], [4, 5, 6]]);
  await assert.rejects(
    () => importText("a,b\n1,2\n3,4,5\n"),
    /^ImportError: line 3: the row has 3 fields but the header names 2 columns$/,
  );
});

Deno.test("CSV: an empty file is an error; a header alone makes an empty table", async () => {
  await assert.rejects(() => importText(""), /The file is empty: there is no header row/);
  const { conn, rows, result } = await importText("a,b\n");
  assert.deepEqual(rows, []);
  assert.equal(result.rows, 0);
  assert.deepEqual(columnTypes(conn), [["a", "TEXT"], ["b", "TEXT"]]);
});

Deno.test("CSV: repeated and empty column names get distinct names", async () => {
  const { conn, rows } = await importText("a,A,,b,a\n1,2,3,4,5\n");
  assert.deepEqual(columnTypes(conn).map(([name]) => name), ["a", "A_2", "column_3", "b", "a_3"]);
  assert.deepEqual(rows, [[1, 2, 3, 4, 5]]);
});

Deno.test("CSV: delimiter and quote are sniffed (semicolons, tabs)", async () => {
  const semicolons = await importText('name;note\n"Doe; J";"a, b"\nX;y\n');
  assert.deepEqual(semicolons.rows, [["Doe; J", "a, b"], ["X", "y"]]);
  const tabs = await importText("a\tb\n1\t2,5\n", { name: "data.txt" });
  assert.deepEqual(tabs.rows, [[1, "2,5"]]);
});

Deno.test("CSV: an unclosed quote is an error naming the line", async () => {
  await assert.rejects(
    () => importText('a,b\n1,2\n"3,4\n'),
    /^ImportError: line 3: a quoted field is not closed/,
  );
});

Deno.test("CSV: --no-detect-types keeps every value as written, as TEXT", async () => {
  const { conn, rows } = await importText("n,x\n1,\n2,b\n", { detectTypes: false });
  assert.deepEqual(columnTypes(conn), [["n", "TEXT"], ["x", "TEXT"]]);
  assert.deepEqual(rows, [["1", ""], ["2", "b"]]);
});

Deno.test("CSV: a column that meets a real or text after the sample is widened, values intact", async () => {
  const lines = Array.from({ length: 50 }, (_, i) => String(i));
  const { conn, rows } = await importText(`v\n${lines.join("\n")}\n2.5\n`, { sampleRows: 10 });
  assert.deepEqual(columnTypes(conn), [["v", "FLOAT"]]);
  assert.equal(rows.length, 51);
  const text = await importText(`v\n${lines.join("\n")}\n007\n`, { sampleRows: 10 });
  assert.deepEqual(columnTypes(text.conn), [["v", "TEXT"]]);
  assert.deepEqual(text.rows.slice(0, 2), [["0"], ["1"]]);
  assert.deepEqual(text.rows.at(-1), ["007"]);
});

Deno.test("CSV: 100,000 rows import, typed, in one call", async () => {
  const lines = ["id,name,value"];
  for (let i = 0; i < 100_000; i++) lines.push(`${i},"name ${i}",${i / 4}`);
  const { conn, result } = await importText(lines.join("\n"), { name: "x.big", pk: ["id"] });
  assert.equal(result.rows, 100_000);
  assert.deepEqual(conn.query("select count(*), sum(value), max(id) from t").rows, [
    [100_000, 1249987500, 99_999],
  ]);
  assert.deepEqual(columnTypes(conn), [["id", "INTEGER"], ["name", "TEXT"], ["value", "FLOAT"]]);
});

Deno.test("existing table: repeated key names its line; --replace and --upsert overwrite", async () => {
  const conn = Connection.open(":memory:");
  await importText("id,name,n\n1,a,10\n2,b,20\n", { pk: ["id"] }, conn);
  await assert.rejects(
    () => importText("id,name,n\n3,c,30\n1,z,0\n", {}, conn),
    /^ImportError: line 3: UNIQUE constraint failed: t.id \(a repeated key/,
  );
  // The failed import left nothing behind: row 3 is not there.
  assert.deepEqual(conn.query("select count(*) from t").rows, [[2]]);
  await importText("id,name\n1,A\n", { replace: true }, conn);
  assert.deepEqual(conn.query("select * from t where id = 1").rows, [[1, "A", null]]);
  await importText("id,n\n2,99\n4,40\n", { upsert: true }, conn);
  assert.deepEqual(conn.query("select * from t order by id").rows, [
    [1, "A", null],
    [2, "b", 99],
    [4, null, 40],
  ]);
});

Deno.test("existing table: an unknown column is an error naming it; --alter adds it", async () => {
  const conn = Connection.open(":memory:");
  await importText("id,name\n1,a\n", {}, conn);
  await assert.rejects(
    () => importText("id,name,size\n2,b,3\n", {}, conn),
    /has no column "size" \(add missing columns with --alter\)/,
  );
  await importText("id,name,size\n2,b,3\n", { alter: true }, conn);
  assert.deepEqual(columnTypes(conn).at(-1), ["size", "INTEGER"]);
  assert.deepEqual(conn.query("select * from t").rows, [[1, "a", null], [2, "b", 3]]);
});

Deno.test("--fts builds <table>_fts, and later imports keep it up to date", async () => {
  const conn = Connection.open(":memory:");
  await importText("title,body\nOwls,night birds\nCats,purr\n", { fts: ["title", "body"] }, conn);
  const search = (term: string) =>
    conn.query("select t.title from t_fts join t on t.rowid = t_fts.rowid where t_fts match ?", [
      term,
    ]).rows;
  assert.deepEqual(search("birds"), [["Owls"]]);
  await importText("title,body\nBats,night flyers\n", {}, conn);
  assert.deepEqual(search("night").map(String).sort(), ["Bats", "Owls"]);
  await assert.rejects(() => importText("a\n1\n", { table: "u", fts: ["nope"] }, conn), /--fts/);
});
