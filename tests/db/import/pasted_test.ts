import assert from "node:assert/strict";
import { readPasted } from "../../../src/db/import/pasted.ts";
import { ImportError } from "../../../src/db/import/import_error.ts";

Deno.test("pasted CSV: quoted fields, the delimiter sniffed, types as the importer's", async () => {
  const pasted = await readPasted(
    'name;note;n;big\n"Smith; J";"two\nlines";007;9007199254740993\nLee;;12;1\n',
    10,
  );
  assert.deepEqual(pasted.columns, [
    { name: "name", type: "TEXT", column_type: null },
    { name: "note", type: "TEXT", column_type: null },
    { name: "n", type: "TEXT", column_type: null },
    { name: "big", type: "INTEGER", column_type: null },
  ]);
  assert.deepEqual(pasted.rows, [
    { name: "Smith; J", note: "two\nlines", n: "007", big: 9007199254740993n },
    { name: "Lee", note: null, n: "12", big: 1 },
  ]);
});

Deno.test("pasted TSV from a spreadsheet, CRLF lines, repeated and empty header names", async () => {
  const pasted = await readPasted("a\tA\t\r\n1\t2.5\tx\r\n", 10);
  assert.deepEqual(pasted.columns.map((c) => [c.name, c.type]), [
    ["a", "INTEGER"],
    ["A_2", "FLOAT"],
    ["column_3", "TEXT"],
  ]);
  assert.deepEqual(pasted.rows, [{ a: 1, A_2: 2.5, column_3: "x" }]);
});

Deno.test("pasted JSON keeps its values' types", async () => {
  const pasted = await readPasted('[{"id": 1, "tags": ["a"]}, {"id": 2.5, "ok": true}]', 10);
  assert.deepEqual(pasted.columns.map((c) => [c.name, c.type]), [
    ["id", "FLOAT"],
    ["tags", "TEXT"],
    ["ok", "INTEGER"],
  ]);
});

Deno.test("pasted text: empty, or more rows than allowed, is an ImportError (a 400)", async () => {
  await assert.rejects(readPasted(" \n", 10), ImportError);
  await assert.rejects(readPasted("a\n1\n2\n3\n", 2), /At most 2 rows can be pasted/);
  assert.equal((await readPasted("a\n1\n2\n", 2)).rows.length, 2);
});

Deno.test("pasted ISO dates: TEXT with the date or datetime column type, when every value is one", async () => {
  const pasted = await readPasted(
    "day\tat\tboth\tbad\tyear\n2024-01-02\t2024-01-02T10:00Z\t2024-01-02\t2023-02-29\t2024\n" +
      "\t2024-01-02 10:00:00.5+02:00\t2024-01-02T10:00\t2024-01-02\t2025\n",
    10,
  );
  assert.deepEqual(pasted.columns, [
    { name: "day", type: "TEXT", column_type: "date" },
    { name: "at", type: "TEXT", column_type: "datetime" },
    { name: "both", type: "TEXT", column_type: null },
    { name: "bad", type: "TEXT", column_type: null },
    { name: "year", type: "INTEGER", column_type: null },
  ]);
  assert.deepEqual(pasted.rows[0].day, "2024-01-02");
});
