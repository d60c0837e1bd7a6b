/**
 * Numbers written by the thousand (exports, JSON rows) get `String(n)`'s text without filling
 * V8's old generation (`util/number_text.ts`).
 */
import assert from "node:assert/strict";
import { numberText } from "../../src/util/number_text.ts";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";

const CURSORS = new URL("../../src/db/worker_cursors.ts", import.meta.url).href;
const CONNECTION = new URL("../../src/sqlite/mod.ts", import.meta.url).href;

Deno.test("numberText writes every number as String does", () => {
  const values = [
    0,
    -0,
    1,
    -1,
    7,
    0.1,
    0.5,
    -2.75,
    1 / 3,
    12.5,
    1e-7,
    1.5e-7,
    123e-20,
    1e20,
    1e21,
    1.5e300,
    5e-324,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 60),
    9007199254740993,
    NaN,
    Infinity,
    -Infinity,
  ];
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 2000; i++) {
    values.push((random() - 0.5) * 10 ** Math.floor(random() * 40 - 20));
  }
  for (const value of values) assert.equal(numberText(value), String(value), `${value}`);
});

Deno.test("an export of a REAL column runs without a full collection of the worker's heap", async () => {
  // As a read worker writes an export, under the shipped V8 flags, with V8 reporting each
  // collection: the text of every REAL cell once went to the old generation (V8's number-string
  // cache), which grew until a full collection, several times an export.
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-numbers-" });
  const script = `
    import { readChunk } from "${CURSORS}";
    import { Connection } from "${CONNECTION}";
    const conn = Connection.open("${dir}/t.db");
    conn.exec("create table t (id integer primary key, size real, weight real)");
    conn.exec(\`with recursive n(value) as (select 1 union all select value + 1 from n
      where value < 200000) insert into t select value, value / 7.0, value / 3.0 from n\`);
    const request = { sql: "select * from t", params: null, maxRows: null, timeLimitMs: null,
      deadline: null };
    const text = { format: "csv", real: [1, 2], limit: 5000 };
    let bytes = 0;
    for (let done = false, first = true; !done; first = false) {
      const chunk = readChunk(conn, 1, request, text, 5000, first);
      bytes += chunk.lines.length;
      done = chunk.done;
    }
    console.log("export ends", bytes);
    conn.close();
  `;
  try {
    const flags = V8_FLAGS_OPTION.replace("--v8-flags=", "--v8-flags=--trace-gc,");
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", flags, script],
      stderr: "inherit",
    }).output();
    assert.ok(output.success);
    // V8 writes its lines through C's buffered stdout: they are not in order with the script's.
    const log = new TextDecoder().decode(output.stdout);
    const bytes = Number(/export ends (\d+)/.exec(log)?.[1]);
    assert.ok(bytes > 6_000_000, `the export wrote ${bytes} bytes`);
    assert.ok(/Scavenge/.test(log), "young collections ran");
    const full = log.split("\n").filter((line) => line.includes("Mark-Compact"));
    assert.deepEqual(full, [], "no full collection");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
