import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/connection.ts";
import { columnTypes, importText } from "./helpers.ts";

/** Each value of `table` as SQLite holds it: its storage class, then the value read back. */
function stored(conn: Connection, table = "t"): string[][] {
  const columns = columnTypes(conn, table).map(([name]) => `"${name}"`);
  const rows = conn.query(
    `select ${columns.map((c) => `typeof(${c}), ${c}`).join(", ")} from "${table}" order by rowid`,
  ).rows;
  return rows.map((row) => {
    const out: string[] = [];
    for (let i = 0; i < row.length; i += 2) {
      const value = row[i + 1];
      out.push(`${row[i]}:${typeof value === "string" ? JSON.stringify(value) : String(value)}`);
    }
    return out;
  });
}

Deno.test("batched rows store exactly what was read: numbers, text that looks numeric, NUL", async () => {
  const { conn } = await importText(
    "id,amount,code,note\n" +
      "1,2.5,007,plain\n" +
      '123456789012345678,-0.0,1e3,"a\u0001b"\n' +
      '-7,1e20,,""\n' +
      '0,0.1,+5,"é, ""q"""\n',
  );
  assert.deepEqual(stored(conn), [
    ["integer:1", "real:2.5", 'text:"007"', 'text:"plain"'],
    ["integer:123456789012345678", "real:0", 'text:"1e3"', 'text:"a\\u0001b"'],
    ["integer:-7", "real:100000000000000000000", "null:null", "null:null"],
    ["integer:0", "real:0.1", 'text:"+5"', 'text:"é, \\"q\\""'],
  ]);
  const text = await importText("n,x\n1,\n2.50,007\n", { detectTypes: false });
  assert.deepEqual(stored(text.conn), [['text:"1"', 'text:""'], ['text:"2.50"', 'text:"007"']]);
  // SQLite's JSON reader would end the text at a NUL: such a batch goes in row by row.
  const nul = await importText("n,x\n1,a\u0000b\n2,\\u0000\n");
  assert.deepEqual(stored(nul.conn), [["integer:1", 'text:"a\\u0000b"'], [
    "integer:2",
    'text:"\\\\u0000"',
  ]]);
});

Deno.test("batched rows keep JSON's values: big and negative zero reals, infinity, lone surrogates", async () => {
  const { conn } = await importText(
    '[{"a": 1, "b": 0.5, "s": "x"},\n' +
      ' {"a": 9007199254740993, "b": -0.0, "s": "y"},\n' +
      ' {"a": 2, "b": 1e999, "s": true},\n' +
      ' {"a": 3, "b": 1e21, "s": null}]',
    { name: "data.json" },
  );
  assert.deepEqual(stored(conn), [
    ["integer:1", "real:0.5", 'text:"x"'],
    ["integer:9007199254740992", "real:0", 'text:"y"'],
    ["integer:2", "real:Infinity", 'text:"1"'],
    ["integer:3", "real:1e+21", "null:null"],
  ]);
  // A lone surrogate is stored as U+FFFD, as binding the text stores it.
  const lone = await importText('[{"s": "\\ud800!"}, {"s": "\\udc00"}]', { name: "data.json" });
  assert.deepEqual(stored(lone.conn), [['text:"\uFFFD!"'], ['text:"\uFFFD"']]);
});

Deno.test("a failed batch adds none of its rows and names the line of the row at fault", async () => {
  const conn = Connection.open(":memory:");
  const lines = ["id,v"];
  for (let i = 1; i <= 3000; i++) lines.push(`${i === 2500 ? 7 : i},${i}`);
  await assert.rejects(
    () => importText(lines.join("\n"), { pk: ["id"] }, conn),
    /^ImportError: line 2501: UNIQUE constraint failed: t\.id/,
  );
  assert.deepEqual(conn.query("select count(*) from sqlite_master where name = 't'").rows, [[0]]);
});
