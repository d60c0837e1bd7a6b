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

/**
 * `rows` (lines of CSV, or JSON objects' texts) repeated to 300 rows, so that whole batches of a
 * hundred go in by one statement each; checks that every copy is stored as `expected`.
 */
async function importRepeated(
  head: string,
  rows: string[],
  expected: string[][],
  options: { name?: string; detectTypes?: boolean } = {},
): Promise<void> {
  const copies = Array.from({ length: 300 / rows.length }, () => rows).flat();
  const text = options.name?.endsWith(".json")
    ? `[${copies.join(",\n")}]`
    : head + copies.join("\n") + "\n";
  const { conn } = await importText(text, options);
  const got = stored(conn);
  assert.equal(got.length, 300);
  for (let i = 0; i < got.length; i += rows.length) {
    assert.deepEqual(got.slice(i, i + rows.length), expected, `rows from ${i + 1}`);
  }
}

Deno.test("batched rows store exactly what was read: numbers, text that looks numeric, NUL", async () => {
  await importRepeated("id,amount,code,note\n", [
    "1,2.5,007,plain",
    '123456789012345678,-0.0,1e3,"a\u0000b"',
    '-7,1e20,,""',
    '0,0.1,+5,"é, ""q"""',
  ], [
    ["integer:1", "real:2.5", 'text:"007"', 'text:"plain"'],
    ["integer:123456789012345678", "real:0", 'text:"1e3"', 'text:"a\\u0000b"'],
    ["integer:-7", "real:100000000000000000000", "null:null", "null:null"],
    ["integer:0", "real:0.1", 'text:"+5"', 'text:"é, \\"q\\""'],
  ]);
  await importRepeated("n,x\n", ["1,", "2.50,007"], [
    ['text:"1"', 'text:""'],
    ['text:"2.50"', 'text:"007"'],
  ], { detectTypes: false });
});

Deno.test("batched rows keep JSON's values: big reals, infinity, booleans, lone surrogates", async () => {
  await importRepeated("", [
    '{"a": 1, "b": 0.5, "s": "x"}',
    '{"a": 9007199254740993, "b": -0.0, "s": "\\ud800!"}',
    '{"a": 2, "b": 1e999, "s": true}',
    '{"a": 3, "b": 1e21, "s": null}',
  ], [
    ["integer:1", "real:0.5", 'text:"x"'],
    // A lone surrogate is stored as U+FFFD.
    ["integer:9007199254740992", "real:0", 'text:"\uFFFD!"'],
    ["integer:2", "real:Infinity", 'text:"1"'],
    ["integer:3", "real:1e+21", "null:null"],
  ], { name: "data.json" });
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

Deno.test("--upsert and --replace take a batch's rows in the file's order, repeated keys too", async () => {
  const conn = Connection.open(":memory:");
  await importText("id,name,n\n1,a,10\n2,b,20\n", { pk: ["id"] }, conn);
  const lines = ["id,name"];
  for (let i = 0; i < 300; i++) lines.push(`${i % 5},x${i}`);
  await importText(lines.join("\n"), { upsert: true }, conn);
  assert.deepEqual(conn.query("select * from t order by id").rows, [
    [0, "x295", null],
    [1, "x296", 10],
    [2, "x297", 20],
    [3, "x298", null],
    [4, "x299", null],
  ]);
  await importText(lines.join("\n"), { replace: true }, conn);
  assert.deepEqual(conn.query("select n from t where id in (1, 2)").rows, [[null], [null]]);
});
