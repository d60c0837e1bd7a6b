/**
 * Big files, cold (issue 42 item 4): the database page and `/<db>.json` of a 2 GB file with 100
 * tables, and the table page of a 20,000,000-row table, each the first request of a server just
 * started, with the file's pages dropped from the kernel's cache first (`dd iflag=nocache`, for
 * that file only: the machine is shared). Served as the design card starts it, `deno run -A
 * cli.ts serve <file>` (mutable), and with the file immutable (`-i`), whose counts are kept.
 * Target: under 300 ms each. Floor: reading the schema with `sqlite3` from the same cold file.
 * An immutable file is hashed (SHA-256) before the server listens (`cli/serve.ts`), which reads
 * it whole: its lines are cold for the server, not for the kernel.
 *
 *   deno run -A bench/big_files.ts [--dir=/tmp/vitrine-big] [--tables=100] [--mb=2000]
 *     [--rows=20000000] [--only=wide|tall] [--runs=1]
 *
 * The files take a few minutes to build (the 20,000,000-row one 25 s, 625 MB; the wide one 2 GB);
 * they are kept in `--dir` and reused by the next run. `--only` builds and measures one of them;
 * `--runs=N` starts N servers per line and reports the median first request (the machine is
 * shared: one run is noisy).
 *
 * @module
 */

import { Connection } from "../src/sqlite/mod.ts";
import { freePort, startServer } from "./lib/process.ts";
import { fmt, type Line, ms, table } from "./lib/report.ts";
import { machine } from "./lib/proc.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const DIR = flags.dir ?? "/tmp/vitrine-big";
const TABLES = Number(flags.tables ?? 100);
const MB = Number(flags.mb ?? 2000);
const ROWS = Number(flags.rows ?? 20_000_000);
const TARGET_MS = 300;
const ONLY = flags.only ?? null;
const RUNS = Math.max(1, Number(flags.runs ?? 1));

/** Rows of about 1 KB (a 900-byte BLOB, a name, a number) fill each table to its share. */
const ROW_BYTES = 1000;

Deno.mkdirSync(DIR, { recursive: true });
const widePath = `${DIR}/wide_${TABLES}x${MB}mb.db`;
const tallPath = `${DIR}/tall_${ROWS}.db`;

function build(path: string, sql: string): void {
  if (exists(path)) return;
  const t0 = performance.now();
  const partial = `${path}.partial`;
  try {
    Deno.removeSync(partial);
  } catch {
    // none left by an earlier run
  }
  const conn = Connection.open(partial, { mode: "rwc" });
  try {
    conn.exec("pragma journal_mode = off; pragma synchronous = off; pragma cache_size = -200000");
    conn.exec(sql);
  } finally {
    conn.close();
  }
  Deno.renameSync(partial, path);
  console.log(`built ${path} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const perTable = Math.round((MB * 1e6) / TABLES / ROW_BYTES);
if (ONLY !== "tall") {
  build(
    widePath,
    Array.from({ length: TABLES }, (_, t) => {
      const name = `t${String(t).padStart(3, "0")}`;
      return `create table ${name} (id integer primary key, name text, value real, body blob);
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${perTable})
      insert into ${name} select i, 'row ' || i, i * 0.5, randomblob(${ROW_BYTES - 100}) from n;`;
    }).join("\n"),
  );
}
if (ONLY !== "wide") {
  build(
    tallPath,
    `create table events (id integer primary key, kind text, amount integer, at text);
     with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
     insert into events select i, 'kind ' || (i % 17), i * 7919 % 100000,
       date('2020-01-01', '+' || (i % 2000) || ' days') from n;`,
  );
}

/** Drops `path`'s pages from the kernel's page cache (that file only). */
async function dropCache(path: string): Promise<void> {
  const out = await new Deno.Command("dd", {
    args: [`if=${path}`, "iflag=nocache", "count=0", "status=none"],
  }).output();
  if (!out.success) throw new Error(`dd could not drop ${path}'s cached pages`);
}

/** Milliseconds `sqlite3` takes to read the schema of the cold file: the floor. */
async function schemaFloor(path: string): Promise<number> {
  await dropCache(path);
  const t0 = performance.now();
  const out = await new Deno.Command("sqlite3", {
    args: [path, "select count(*) from sqlite_master"],
    stdout: "null",
  }).output();
  if (!out.success) throw new Error("sqlite3 failed");
  return performance.now() - t0;
}

/** The first and the second answer to `path` from a server just started on the cold file. */
async function cold(file: string, immutable: boolean, path: string) {
  await dropCache(file);
  const port = freePort();
  const server = await startServer(
    [
      Deno.execPath(),
      "run",
      "-A",
      "cli.ts",
      "serve",
      ...(immutable ? ["-i"] : []),
      file,
      "--port",
      String(port),
      "--no-access-log",
    ],
    port,
    "/-/versions.json",
  );
  try {
    const time = async () => {
      const t0 = performance.now();
      const response = await fetch(server.base + path);
      const body = await response.text();
      const title = /<title>([^<]*)/.exec(body)?.[1]?.trim() ?? body.slice(0, 80);
      return { ms: performance.now() - t0, body, status: response.status, title };
    };
    const first = await time();
    const second = await time();
    const failed = [first, second].filter((r) => r.status !== 200);
    const error = failed.length
      ? `; ${failed.map((r) => `${r.status} ${r.title}`).join(", ")}`
      : "";
    return { first: first.ms, second: second.ms, body: first.body, error, ok: !failed.length };
  } finally {
    await server.stop();
  }
}

const size = (path: string) => exists(path) ? fmt(Deno.statSync(path).size / 1e6) : "(not built)";
console.log(`# Big files, cold\n\n${machine()}`);
console.log(
  `${TABLES} tables in ${size(widePath)} MB (${fmt(perTable)} rows each); ` +
    `${fmt(ROWS)} rows in one table, ${size(tallPath)} MB. Each line: a server just started, ` +
    `the file's pages dropped from the kernel's cache` +
    (RUNS > 1 ? `; the median of ${RUNS} servers.` : "."),
);

const wide = "/" + widePath.split("/").at(-1)!.replace(/\.db$/, "");
const tall = "/" + tallPath.split("/").at(-1)!.replace(/\.db$/, "");
const cases: [string, string, string][] = [
  ["database page", widePath, wide],
  ["database JSON", widePath, `${wide}.json`],
  ["table page, 20M rows", tallPath, `${tall}/events`],
  ["table JSON with its count, 20M rows", tallPath, `${tall}/events.json?_extra=count`],
];
const chosen = cases.filter(([, file]) =>
  ONLY === null || file === (ONLY === "wide" ? widePath : tallPath)
);
const lines: Line[] = [];
const floors = new Map<string, number>();
for (const [, file] of chosen) if (!floors.has(file)) floors.set(file, await schemaFloor(file));
const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
for (const immutable of [false, true]) {
  for (const [name, file, path] of chosen) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await cold(file, immutable, path));
    const r = runs.find((run) => !run.ok) ?? runs[0];
    const first = median(runs.map((run) => run.first));
    const second = median(runs.map((run) => run.second));
    const floor = floors.get(file)!;
    const counts = r.ok && path.includes(".json") ? countsShown(r.body) : "";
    const spread = RUNS > 1 ? ` (${runs.map((run) => ms(run.first)).join(", ")})` : "";
    lines.push({
      endpoint: `${name} (${immutable ? "immutable" : "mutable"}): \`${path}\``,
      p50: first,
      floor: `sqlite3 schema, cold ${ms(floor)}`,
      ratio: `${fmt(first / floor, 1)}x`,
      target: `< ${TARGET_MS} ms cold`,
      met: runs.every((run) => run.ok) && first < TARGET_MS,
      note: `first requests${spread || ` ${ms(first)}`}; second ${ms(second)}${counts}${r.error}`,
    });
  }
}
table("Big files: the first request of a fresh server on a cold file (p50 column)", lines);

/** "; counts: 12 of 100" for a database's JSON, "; count: 20,000,000" for a table's. */
function countsShown(body: string): string {
  const data = JSON.parse(body);
  if (Array.isArray(data.tables)) {
    const known = data.tables.filter((t: { count: unknown }) => typeof t.count === "number");
    return `; counts shown: ${known.length} of ${data.tables.length}`;
  }
  if ("count" in data) return `; count: ${data.count === null ? "none" : fmt(data.count)}`;
  return "";
}
