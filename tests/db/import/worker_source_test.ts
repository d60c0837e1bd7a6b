/**
 * `vitrine insert` reads the file on a worker thread (`worker_source.ts`): every file here is
 * imported both ways, and the tables, the columns' types and the errors (with their lines) must
 * be the same.
 */
import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/connection.ts";
import { importFile, type ImportFileOptions } from "../../../src/db/import/import_file.ts";

type Outcome = { rows: unknown[][]; types: string[][]; error: string | null; line: number | null };

async function importBothWays(
  content: string | Uint8Array,
  name: string,
  options: Partial<ImportFileOptions> = {},
  setUp = "",
): Promise<Outcome> {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-worker-source-" });
  try {
    const path = `${dir}/${name}`;
    if (typeof content === "string") Deno.writeTextFileSync(path, content);
    else Deno.writeFileSync(path, content);
    const outcomes: Outcome[] = [];
    for (const inWorker of [false, true]) {
      const conn = Connection.open(":memory:");
      if (setUp) conn.exec(setUp);
      let error: string | null = null;
      let line: number | null = null;
      try {
        await importFile(conn, { path, table: "t", inWorker, ...options });
      } catch (e) {
        error = (e as Error).message;
        line = (e as { line?: number }).line ?? null;
      }
      const types = conn.query("select name, type from pragma_table_info('t')").rows.map((r) =>
        r.map(String)
      );
      const rows = types.length
        ? conn.query(
          "select *, " + types.map(([n]) => `typeof([${n}])`).join(", ") +
            " from t order by rowid",
        ).rows
        : [];
      conn.close();
      outcomes.push({ rows, types, error, line });
    }
    assert.deepEqual(outcomes[1], outcomes[0]);
    return outcomes[1];
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("a CSV read by the worker widens columns mid-file as read in place", async () => {
  const lines = ["id,n,code"];
  for (let i = 0; i < 3000; i++) lines.push(`${i},${i},${i % 10}`);
  lines.push("3000,1.5,x", '3001,"two\nlines",', "3002,7,007");
  const outcome = await importBothWays(lines.join("\n"), "wide.csv", { sampleRows: 50 });
  assert.deepEqual(outcome.types, [["id", "INTEGER"], ["n", "TEXT"], ["code", "TEXT"]]);
  assert.deepEqual(outcome.rows.length, 3003);
  // Numbers the worker read: an integer beyond 2^53 exact, -0 and 2.50 as numbers.
  const big = await importBothWays("n,m\n9007199254740993,-0\n5,2.50\n", "big.csv");
  assert.deepEqual(big.rows, [[9007199254740993n, 0, "integer", "real"], [
    5,
    2.5,
    "integer",
    "real",
  ]]);
  assert.deepEqual(outcome.rows.at(-2)!.slice(0, 3), [3001, "two\nlines", null]);
});

Deno.test("the worker's errors name the same line: ragged rows, repeated keys, bad UTF-8", async () => {
  const ragged = await importBothWays("a,b\n1,2\n3,4,5\n", "ragged.csv");
  assert.deepEqual(ragged.line, 3);
  assert(ragged.error!.startsWith("line 3: the row has 3 fields"));
  const repeated = await importBothWays("id,v\n1,a\n2,b\n1,c\n", "keys.csv", { pk: ["id"] });
  assert.deepEqual(repeated.line, 4);
  assert.deepEqual(repeated.rows, []);
  const bytes = new TextEncoder().encode("a\n" + "x\n".repeat(40000) + "caf");
  const bad = await importBothWays(new Uint8Array([...bytes, 0xe9, 0x0a]), "bad.csv");
  assert(bad.error!.includes("--encoding latin-1"));
  const empty = await importBothWays("", "empty.csv");
  assert(empty.error!.includes("empty"));
  const missing = await importBothWays("a,zz\n1,2\n", "alter.csv", {}, "create table t (a)");
  assert(missing.error!.includes('no column "zz"'));
});

Deno.test("the worker reads Latin-1, header-only files, JSON keys that appear later, and --upsert, --alter, text mode", async () => {
  await importBothWays(new Uint8Array([0x6e, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]), "latin.csv");
  const header = await importBothWays("a,b\n", "header.csv");
  assert.deepEqual(header.types, [["a", "TEXT"], ["b", "TEXT"]]);
  const json = await importBothWays('{"a":1}\n{"a":2,"b":{"c":[1]}}\n{"c":true}\n', "x.ndjson");
  assert.deepEqual(json.types.map(([n]) => n), ["a", "b", "c"]);
  await importBothWays('[{"a":1.5,"b":"x"},{"a":2}]', "x.json");
  const upsert = await importBothWays("id,v,w\n1,new,5\n3,c,6\n", "up.csv", {
    upsert: true,
    alter: true,
  }, "create table t (id integer primary key, v); insert into t values (1, 'old'), (2, 'b')");
  assert.deepEqual(upsert.rows.map((row) => row.slice(0, 3)), [[1, "new", 5], [2, "b", null], [
    3,
    "c",
    6,
  ]]);
  const text = await importBothWays("a,b\n007,\n1.50,2\n", "text.csv", { detectTypes: false });
  assert.deepEqual(text.rows.map((row) => row.slice(0, 2)), [["007", ""], ["1.50", "2"]]);
});

Deno.test("packed rows from the worker store what records read in place store", async () => {
  // Reals of every shape, integers and text in whole statements of a hundred rows.
  const random = (() => {
    let seed = 7;
    return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  })();
  const lines = ["id,real,mixed,empty"];
  for (let i = 0; i < 1000; i++) {
    const real = [
      (random() * 1e6).toFixed(Math.floor(random() * 17)),
      `${(random() * 10).toFixed(3)}e${Math.floor(random() * 600) - 300}`,
      `-0.${Math.floor(random() * 1e15)}`,
      "0.1",
      "123456789012345678.5",
    ][i % 5];
    lines.push(`${i},${real},${i % 7 ? i : "x" + i},${i % 2 ? "" : i}`);
  }
  const outcome = await importBothWays(lines.join("\n") + "\n", "reals.csv");
  assert.deepEqual(outcome.types.map(([, type]) => type), ["INTEGER", "FLOAT", "TEXT", "INTEGER"]);
  assert.equal(outcome.rows[3][1], 0.1);
  // An existing table's own types decide (the text is bound as it is); empty text kept as such.
  const existing = await importBothWays(
    "a,b,c\n1,2.5,3\n4,x,\n",
    "existing.csv",
    { emptyAsNull: false },
    "create table t (a integer, b real, c text)",
  );
  assert.deepEqual(existing.rows, [[1, 2.5, "3", "integer", "real", "text"], [
    4,
    "x",
    "",
    "integer",
    "text",
    "text",
  ]]);
  const empty = await importBothWays("a,b\n1,\n2,3\n", "empty.csv", { emptyAsNull: false });
  assert.deepEqual(empty.rows, [[1, "", "integer", "text"], [2, 3, "integer", "integer"]]);
  // A repeated key inside a whole statement of rows is named by its own line.
  const keys = ["id,v", ...Array.from({ length: 250 }, (_, i) => `${i === 150 ? 3 : i},v`)];
  const repeated = await importBothWays(keys.join("\n"), "keys.csv", { pk: ["id"] });
  assert.equal(repeated.line, 152);
});
