import assert from "node:assert/strict";
import { textRows } from "../../src/util/text_rows.ts";
import { csvCellText, csvLine } from "../../src/render/csv.ts";
import { jsonBodyText, markIntegralReals, realColumnIndexes } from "../../src/render/json.ts";
import { ndjsonLines, rowsJson } from "../../src/util/json_rows.ts";
import { shapedRows } from "../../src/render/json_shapes.ts";

const columns = ["id", "name", "price", "note", "big", "dup", "dup"];
const types = { id: "INTEGER", name: "TEXT", price: "REAL", note: "TEXT", big: "INTEGER" };
const rows = [
  [1, "plain", 12, null, 9007199254740993n, "a", "b"],
  [2, 'comma, "quote"', 1.5, "line\r\nbreak\ttab", -5, "", ""],
  [3, "émoji 🌳", Infinity, "", 0, null, 1],
  [4, "", -Infinity, "x", 1e21, 2, 3],
  [5, "", NaN, "\\back", -0, 3.25, 1e-7],
];

Deno.test("worker-written export lines equal the main thread's CSV, TSV and NDJSON", () => {
  const real = realColumnIndexes(columns, types);
  for (const delimiter of [",", "\t"] as const) {
    const expected = rows.map((row) =>
      csvLine(
        row.map((value, i) => csvCellText(value, types[columns[i] as keyof typeof types])),
        delimiter,
      )
    ).join("");
    const format = delimiter === "," ? "csv" : "tsv";
    assert.equal(textRows(columns, rows, { format, real, limit: 10 }), expected, format);
  }
  const ndjson = textRows(columns, rows, { format: "ndjson", real, limit: 10 });
  assert.equal(ndjson, ndjsonLines(columns, rows, real));
  // Compact, like every JSON body; a repeated name keeps its first place and its last value.
  assert.equal(
    ndjson?.split("\n")[0],
    '{"id":1,"name":"plain","price":12.0,"note":null,"big":9007199254740993,"dup":"b"}',
  );
  assert.equal(
    textRows(["one"], [[""], [null]], { format: "csv", real: [], limit: 9 }),
    '""\r\n""\r\n',
  );
  // Only `limit` rows; a BLOB leaves the page to the main thread.
  assert.equal(textRows(columns, rows, { format: "csv", real, limit: 1 })?.split("\r\n").length, 2);
  assert.equal(
    textRows(["b"], [[new Uint8Array([1])]], { format: "csv", real: [], limit: 1 }),
    null,
  );
});

Deno.test("JSON rows written in one pass equal the object path's text", () => {
  const pks = ["id"];
  const real = realColumnIndexes(columns, types, pks);
  for (const shape of ["objects", "arrays"] as const) {
    const marked = markIntegralReals(columns, rows, types, pks);
    const expected = jsonBodyText(shapedRows(shape, columns, marked, pks));
    assert.equal(rowsJson(columns, rows, { shape, real }), expected, shape);
  }
});
