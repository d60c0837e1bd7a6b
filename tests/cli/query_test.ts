/**
 * `vitrine DB --query SQL`: every format prints every row, parameters bind, plugins' SQL
 * functions and the time limit apply as on the server, and a failing query exits 1 with its
 * error on stderr.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

async function vitrine(args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

function buildDb(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-cli-query-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table t (id integer primary key, name text, price real);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 2500)
    insert into t select i, 'item, ' || i, i * 1.5 from n;`);
  conn.close();
  return path;
}

const FEW = "select id, name, price from t where id <= :top order by id";

Deno.test("--query prints csv, tsv, json, ndjson and an aligned table", async () => {
  const db = buildDb();
  const run = (format: string) => vitrine([db, "--query", FEW, "--format", format, "-p", "top=3"]);
  const csv = await run("csv");
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(
    csv.stdout.replaceAll("\r\n", "\n"),
    'id,name,price\n1,"item, 1",1.5\n2,"item, 2",3.0\n3,"item, 3",4.5\n',
  );
  const tsv = await run("tsv");
  assert.equal(tsv.stdout.replaceAll("\r\n", "\n").split("\n")[1], "1\titem, 1\t1.5");
  const json = await run("json");
  assert.deepEqual(JSON.parse(json.stdout), [
    { id: 1, name: "item, 1", price: 1.5 },
    { id: 2, name: "item, 2", price: 3 },
    { id: 3, name: "item, 3", price: 4.5 },
  ]);
  const ndjson = await run("ndjson");
  assert.deepEqual(ndjson.stdout.trim().split("\n").map((line) => JSON.parse(line).id), [1, 2, 3]);
  const table = await run("table");
  assert.equal(
    table.stdout,
    [
      "id  name     price",
      "--  -------  -----",
      " 1  item, 1    1.5",
      " 2  item, 2      3",
      " 3  item, 3    4.5",
      "",
    ].join("\n"),
  );
});

Deno.test("--query goes past max_returned_rows in every format", async () => {
  const db = buildDb();
  for (const format of ["json", "ndjson", "csv"]) {
    const all = await vitrine([
      db,
      "--query",
      "select id from t",
      "--format",
      format,
      "-s",
      "max_returned_rows",
      "1000",
    ]);
    assert.equal(all.code, 0, all.stderr);
    const count = format === "json"
      ? JSON.parse(all.stdout).length
      : all.stdout.trim().split("\n").length - (format === "csv" ? 1 : 0);
    assert.equal(count, 2500, format);
  }
});

Deno.test("--query fails with the SQL error on stderr and exit status 1", async () => {
  const db = buildDb();
  const missing = await vitrine([db, "--query", "select * from nope", "--format", "json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no such table: nope/);
  assert.equal(missing.stdout, "");
  const writing = await vitrine([db, "--query", "delete from t", "--format", "csv"]);
  assert.equal(writing.code, 1);
  assert.match(writing.stderr, /Statement must be a SELECT|read-only|SELECT/i);
  const csvError = await vitrine([db, "--query", "select * from nope", "--format", "csv"]);
  assert.equal(csvError.code, 1);
  assert.match(csvError.stderr, /no such table: nope/);
});

Deno.test("--query runs plugins' SQL functions under the server's time limit", async () => {
  const db = buildDb();
  const plugin = new URL("../fixtures/plugins/slow_sql.ts", import.meta.url).pathname;
  const fast = await vitrine([
    db,
    "--plugin",
    plugin,
    "--query",
    "select slow(7) as x",
    "--format",
    "json",
  ]);
  assert.equal(fast.code, 0, fast.stderr);
  assert.deepEqual(JSON.parse(fast.stdout), [{ x: 7 }]);
  const slow = await vitrine([
    db,
    "--plugin",
    plugin,
    "--query",
    "select slow(id) from t",
    "--format",
    "csv",
    "-s",
    "sql_time_limit_ms",
    "100",
  ]);
  assert.equal(slow.code, 1);
  assert.match(slow.stderr, /too long|interrupted/i);
});
