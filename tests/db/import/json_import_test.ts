import assert from "node:assert/strict";
import { columnTypes, importText } from "./helpers.ts";

Deno.test("JSON array: nested values are stored as JSON text; new keys add columns", async () => {
  const { conn, rows } = await importText(
    '[\n {"id": 1, "tags": ["a", "b"], "geo": {"lat": 1.5}},\n {"id": 2, "note": "x, \\"y\\" ]"}\n]',
    { name: "data.json" },
  );
  assert.deepEqual(columnTypes(conn), [
    ["id", "INTEGER"],
    ["tags", "TEXT"],
    ["geo", "TEXT"],
    ["note", "TEXT"],
  ]);
  assert.deepEqual(rows, [
    [1, '["a","b"]', '{"lat":1.5}', null],
    [2, null, null, 'x, "y" ]'],
  ]);
});

Deno.test("NDJSON: one object a line, blank lines skipped, booleans as integers", async () => {
  const { rows } = await importText('{"a": 1, "ok": true}\n\n{"a": 2.5, "ok": false}\n', {
    name: "events.ndjson",
  });
  assert.deepEqual(rows, [[1, 1], [2.5, 0]]);
});

Deno.test("JSON format is sniffed from the first character when the name says nothing", async () => {
  const array = await importText('[{"a": "x"}]', { name: "stdin" });
  assert.deepEqual(array.rows, [["x"]]);
  const lines = await importText('{"a": "y"}\n', { name: "stdin" });
  assert.deepEqual(lines.rows, [["y"]]);
});

Deno.test("JSON errors name the line", async () => {
  await assert.rejects(
    () => importText('{"a": 1}\n{"a": }\n', { name: "x.ndjson" }),
    /^ImportError: line 2: invalid JSON/,
  );
  await assert.rejects(
    () => importText('[{"a": 1},\n 5]', { name: "x.json" }),
    /^ImportError: line 2: expected a JSON object \(one row\), found a number$/,
  );
  await assert.rejects(() => importText('{"a": 1}', { name: "x.json" }), /array of objects/);
  await assert.rejects(() => importText('[{"a": 1}', { name: "x.json" }), /not closed/);
  await assert.rejects(() => importText("", { name: "x.json" }), /empty/);
});
