import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { run } from "./run_main.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { progressLine } from "../../src/cli/progress_bar.ts";

const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));

function rows(db: string, sql: string): unknown[][] {
  const conn = Connection.open(db, { mode: "ro" });
  try {
    return conn.query(sql).rows;
  } finally {
    conn.close();
  }
}

Deno.test("vitrine insert DB TABLE FILE creates the database and a typed table", async () => {
  const dir = Deno.makeTempDirSync();
  const csv = `${dir}/people.csv`;
  Deno.writeTextFileSync(csv, "id,name,age\n1,Ann,31\n2,Bob,\n");
  const db = `${dir}/new.db`;
  const { code, out } = await run(["insert", db, "people", csv, "--pk", "id"]);
  assert.equal(code, 0);
  assert.match(out, /^2 rows into people \(new table\) in \d+\.\d s$/);
  assert.deepEqual(rows(db, "select * from people"), [[1, "Ann", 31], [2, "Bob", null]]);
  assert.deepEqual(rows(db, "select pk from pragma_table_info('people') where name = 'id'"), [[1]]);
});

Deno.test("vitrine insert: a repeated key fails naming the line and writes nothing", async () => {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/d.db`;
  Deno.writeTextFileSync(`${dir}/a.csv`, "id,v\n1,a\n");
  Deno.writeTextFileSync(`${dir}/b.csv`, "id,v\n2,b\n1,again\n");
  assert.equal((await run(["insert", db, "t", `${dir}/a.csv`, "--pk", "id"])).code, 0);
  const failed = await run(["insert", db, "t", `${dir}/b.csv`]);
  assert.equal(failed.code, 1);
  assert.equal(
    failed.err,
    `Error: ${dir}/b.csv: line 3: UNIQUE constraint failed: t.id (a repeated key: use ` +
      "--replace or --upsert to overwrite)",
  );
  assert.deepEqual(rows(db, "select * from t"), [[1, "a"]]);
  assert.equal((await run(["insert", db, "t", `${dir}/b.csv`, "--replace", "--silent"])).code, 0);
  assert.deepEqual(rows(db, "select * from t order by id"), [[1, "again"], [2, "b"]]);
});

Deno.test("vitrine insert: options are checked and a non-database file refused", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/a.csv`, "id\n1\n");
  const both = await run(["insert", `${dir}/d.db`, "t", `${dir}/a.csv`, "--replace", "--upsert"]);
  assert.equal(both.code, 1);
  assert.match(both.err, /choose one of --replace and --upsert/);
  const notDb = await run(["insert", `${dir}/a.csv`, "t", `${dir}/a.csv`]);
  assert.match(notDb.err, /is not a SQLite database/);
  const missing = await run(["insert", `${dir}/d.db`, "t", `${dir}/nope.csv`]);
  assert.match(missing.err, /nope\.csv: Cannot read .*no such file/);
});

Deno.test("vitrine insert reads standard input with -, and prints no progress on a pipe", async () => {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/d.db`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "insert", db, "events", "-", "--fts", "kind"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = [];
  for (let i = 0; i < 20_000; i++) {
    lines.push(JSON.stringify({ n: i, kind: i % 2 ? "odd" : "even" }));
  }
  await writer.write(new TextEncoder().encode(lines.join("\n")));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  assert.equal(new TextDecoder().decode(stderr), "");
  assert.equal(code, 0);
  assert.match(new TextDecoder().decode(stdout), /^20,000 rows into events \(new table\)/);
  assert.deepEqual(rows(db, "select count(*) from events_fts where events_fts match 'odd'"), [
    [10_000],
  ]);
});

Deno.test("the progress line shows rows, rate, share, bytes and time left", () => {
  assert.equal(
    progressLine(5000, 512 * 1024, 1024 * 1024, 2),
    "[############------------] 50%  5,000 rows  2,500 rows/s  0.5 MB of 1.0 MB  2s left",
  );
  assert.equal(progressLine(10, 2048, null, 1), "10 rows  10 rows/s  0.0 MB");
});

Deno.test("vitrine insert draws its progress bar on a terminal, and clears it", async () => {
  const dir = Deno.makeTempDirSync();
  const csv = `${dir}/rows.csv`;
  Deno.writeTextFileSync(csv, "n\n" + Array.from({ length: 30_000 }, (_, i) => i).join("\n"));
  // script(1) gives the command a pseudo-terminal, as a person at a terminal would have.
  const command = [Deno.execPath(), "run", "-A", CLI, "insert", `${dir}/d.db`, "t", csv]
    .map((part) => `'${part}'`).join(" ");
  const { code, stdout } = await new Deno.Command("script", {
    args: ["-qfec", command, "/dev/null"],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(code, 0);
  const seen = new TextDecoder().decode(stdout);
  assert.match(
    seen,
    /\r\[[#-]{24}\] \d+% {2}[\d,]+ rows {2}[\d,]+ rows\/s {2}\d+\.\d MB of \d+\.\d MB/,
  );
  // The bar's line is erased (ESC [K) before the summary is written over it.
  assert.ok(seen.includes("\r\x1b[K30,000 rows into t (new table)"), seen.slice(-200));
});

Deno.test("vitrine insert: ISO dates stay TEXT with the date or datetime column type", async () => {
  const dir = Deno.makeTempDirSync();
  const csv = `${dir}/events.csv`;
  Deno.writeTextFileSync(
    csv,
    "id,day,at,mixed,not_a_day\n" +
      "1,2024-01-02,2024-01-02T10:30:00Z,2024-01-02,2024-02-30\n" +
      "2,,2024-01-03 08:00,2024-01-03T08:00,2024-01-05\n",
  );
  const db = `${dir}/data.db`;
  const internal = `${dir}/internal.db`;
  const { code, out } = await run(["insert", db, "events", csv, "--internal", internal]);
  assert.equal(code, 0);
  assert.match(out, /in \d+\.\d s; column types: day \(date\), at \(datetime\)$/);
  assert.deepEqual(
    rows(db, "select name, type from pragma_table_info('events')").map((r) => r.join(" ")),
    ["id INTEGER", "day TEXT", "at TEXT", "mixed TEXT", "not_a_day TEXT"],
  );
  assert.deepEqual(rows(db, "select typeof(day), typeof(at) from events where id = 1"), [[
    "text",
    "text",
  ]]);
  assert.deepEqual(
    rows(internal, "select * from column_types order by column_name"),
    [["data", "events", "at", "datetime", null], ["data", "events", "day", "date", null]],
  );
  // The server started with that internal database gives the columns their types.
  const served = await run([
    db,
    "--internal",
    internal,
    "--get",
    "/data/events.json?_extra=column_types",
  ]);
  assert.deepEqual(JSON.parse(served.out).column_types, {
    at: { type: "datetime", config: null },
    day: { type: "date", config: null },
  });
  // Types off: plain text, no column type.
  const off = await run(["insert", `${dir}/off.db`, "events", csv, "--no-detect-types"]);
  assert.doesNotMatch(off.out, /column types/);
});

Deno.test("vitrine insert: rows committed are reported as inserted even when --internal cannot keep their column types", async () => {
  const dir = Deno.makeTempDirSync();
  const csv = `${dir}/events.csv`;
  Deno.writeTextFileSync(csv, "id,day\n1,2024-01-02\n2,2024-01-03\n");
  const db = `${dir}/data.db`;
  const internal = `${dir}/internal.db`;
  // A running server (another program) holds the internal database's write lock.
  const other = Connection.open(internal);
  other.exec("create table held (x); begin immediate; insert into held values (1)");
  let result;
  try {
    result = await run(["insert", db, "events", csv, "--internal", internal]);
  } finally {
    other.exec("rollback");
    other.close();
  }
  // Exit 1 would have the rows sent again (twice over): they are in.
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^2 rows into events \(new table\)/);
  assert.match(
    result.err,
    new RegExp(`Warning: the rows are in, but their column types could not be kept in ${internal}`),
  );
  assert.equal(rows(db, "select count(*) from events")[0][0], 2);
});
