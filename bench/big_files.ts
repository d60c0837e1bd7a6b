/**
 * Big files, cold (issue 42 item 4): the database page and `/<db>.json` of a 2 GB file with 100
 * tables, and the table page of a 20,000,000-row table, each the first request of a server just
 * started (then its second request, warm). Served as the design card starts it, `deno run -A
 * cli.ts serve <file>` (mutable), and with the file immutable (`-i`), whose counts are kept.
 * Target: the first request under 300 ms.
 *
 * The kernel's page cache, before each server starts (`--cache`, several allowed):
 * - `file`: the file's own pages dropped (`dd iflag=nocache`, that file only: the machine is
 *   shared), Deno's executable and Vitrine's source still cached;
 * - `all`: every clean page of the machine dropped (`/proc/sys/vm/drop_caches`, needs root; the
 *   server then also reads Deno and the source from the disk);
 * - `warm`: nothing dropped (the file was read by the previous server).
 * An immutable file is hashed (SHA-256) before the server listens (`cli/serve.ts`), which reads
 * it whole: its lines are cold for the server, not for the kernel.
 *
 * Floor, in the same run and the same cache state: a Deno hello-world server's first answer
 * after it listens (`bench/hello_server.ts`) plus the page's own SQL run through the binding on a
 * fresh connection (the schema for the database page; the first rows and the capped count for
 * the table page).
 *
 *   deno run -A bench/big_files.ts [--dir=/tmp/vitrine-big] [--tables=100] [--mb=2000]
 *     [--rows=20000000] [--only=wide|tall] [--runs=3] [--cache=file,warm] [--clean]
 *
 * The files take a minute to build (the 20,000,000-row one 25–35 s, 625 MB; the wide one 2 GB);
 * they are kept in `--dir` and reused by the next run (`--clean` deletes them at the end).
 * `--only` builds and measures one of them; `--runs=N` starts N servers per line and reports the
 * median first and second requests, with every first one in the note (the machine is shared: one
 * run is noisy).
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
const RUNS = Math.max(1, Number(flags.runs ?? 3));
const CACHES = (flags.cache ?? "file,warm").split(",") as CacheState[];
type CacheState = "file" | "all" | "warm";
for (const cache of CACHES) {
  if (!["file", "all", "warm"].includes(cache)) throw new Error(`--cache: ${cache}?`);
}

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
async function dropFile(path: string): Promise<void> {
  const out = await new Deno.Command("dd", {
    args: [`if=${path}`, "iflag=nocache", "count=0", "status=none"],
  }).output();
  if (!out.success) throw new Error(`dd could not drop ${path}'s cached pages`);
}

/** True when this process may drop the whole page cache (root, a writable `/proc/sys`). */
function mayDropAll(): boolean {
  try {
    Deno.writeTextFileSync("/proc/sys/vm/drop_caches", "1");
    return true;
  } catch {
    return false;
  }
}

/** Puts the kernel's page cache in `state` for `file`. */
async function prepareCache(state: CacheState, file: string): Promise<void> {
  if (state === "file") await dropFile(file);
  // 1: clean page-cache pages only (no dentries, no inodes); dirty pages are left alone.
  else if (state === "all") Deno.writeTextFileSync("/proc/sys/vm/drop_caches", "1");
}

const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const loadNow = () => Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);

/** A fresh Deno hello-world's first answer after it listens, in `state` (part of the floor). */
async function helloFloor(state: CacheState, file: string): Promise<number> {
  await prepareCache(state, file);
  const port = freePort();
  const server = await startServer(
    [Deno.execPath(), "run", "-A", "bench/hello_server.ts", String(port)],
    port,
    "/",
  );
  try {
    const t0 = performance.now();
    await (await fetch(`${server.base}/row`)).arrayBuffer();
    return performance.now() - t0;
  } finally {
    await server.stop();
  }
}

/** The page's own SQL through the binding, on a fresh connection to the file in `state`. */
async function sqlFloor(state: CacheState, file: string, statements: string[]): Promise<number> {
  await prepareCache(state, file);
  const t0 = performance.now();
  const conn = Connection.open(file, { mode: "ro" });
  try {
    for (const sql of statements) conn.query(sql);
  } finally {
    conn.close();
  }
  return performance.now() - t0;
}

/** The first and the second answer to `path` from a server just started, in `state`. */
async function cold(state: CacheState, file: string, immutable: boolean, path: string) {
  await prepareCache(state, file);
  const port = freePort();
  const load = loadNow();
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
    // With every page dropped, a start on a loaded machine read Deno and the source from the
    // disk for over 30 s once.
    120_000,
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
    return {
      first: first.ms,
      second: second.ms,
      body: first.body,
      title: first.title,
      error,
      ok: !failed.length,
      load,
    };
  } finally {
    await server.stop();
  }
}

const size = (path: string) => exists(path) ? fmt(Deno.statSync(path).size / 1e6) : "(not built)";
const canDropAll = !CACHES.includes("all") || mayDropAll();
const states = CACHES.filter((state) => state !== "all" || canDropAll);
console.log(`# Big files, cold\n\n${machine()}`);
console.log(
  `${TABLES} tables in ${size(widePath)} MB (${fmt(perTable)} rows each); ` +
    `${fmt(ROWS)} rows in one table, ${size(tallPath)} MB. Each line: a server just started ` +
    `(the median of ${RUNS}), its first request and then its second; the page cache before ` +
    `each server: ${states.join(", ")}` +
    (canDropAll ? "." : " (`all` skipped: /proc/sys/vm/drop_caches is not writable here)."),
);

const wide = widePath.split("/").at(-1)!.replace(/\.db$/, "");
const tall = tallPath.split("/").at(-1)!.replace(/\.db$/, "");
const SCHEMA_SQL = [
  `select m.name, p.name from sqlite_master as m join pragma_table_xinfo(m.name) as p
   where m.type = 'table'`,
];
const TABLE_SQL = [
  "select id, kind, amount, at from events order by id limit 101",
  "select count(*) from (select 1 from events limit 10000)",
];
const cases: { name: string; file: string; path: string; sql: string[] }[] = [
  { name: "database page", file: widePath, path: `/${wide}`, sql: SCHEMA_SQL },
  { name: "database JSON", file: widePath, path: `/${wide}.json`, sql: SCHEMA_SQL },
  { name: "table page, 20M rows", file: tallPath, path: `/${tall}/events`, sql: TABLE_SQL },
  {
    name: "table JSON with its count, 20M rows",
    file: tallPath,
    path: `/${tall}/events.json?_extra=count`,
    sql: TABLE_SQL,
  },
];
const chosen = cases.filter(({ file }) =>
  ONLY === null || file === (ONLY === "wide" ? widePath : tallPath)
);

for (const state of states) {
  const lines: Line[] = [];
  const hello: number[] = [];
  for (let i = 0; i < RUNS; i++) hello.push(await helloFloor(state, chosen[0].file));
  for (const immutable of [false, true]) {
    for (const { name, file, path, sql } of chosen) {
      const runs = [];
      const sqlTimes = [];
      for (let i = 0; i < RUNS; i++) {
        sqlTimes.push(await sqlFloor(state, file, sql));
        runs.push(await cold(state, file, immutable, path));
      }
      const r = runs.find((run) => !run.ok) ?? runs[0];
      const first = median(runs.map((run) => run.first));
      const second = median(runs.map((run) => run.second));
      const floor = median(hello) + median(sqlTimes);
      const loads = runs.map((run) => run.load);
      const shown = r.ok ? shownCount(r.body, r.title) : "";
      lines.push({
        endpoint: `${name} (${immutable ? "immutable" : "mutable"}): \`${path}\``,
        p50: first,
        floor: `${ms(floor)} (hello-world ${ms(median(hello))} + SQL ${ms(median(sqlTimes))})`,
        ratio: `${fmt(first / floor, 1)}x`,
        target: `< ${TARGET_MS} ms`,
        met: runs.every((run) => run.ok) && first < TARGET_MS,
        note: `first ${runs.map((run) => ms(run.first)).join(", ")}; second ${ms(second)}; ` +
          `load ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)}${shown}${r.error}`,
      });
    }
  }
  table(`Page cache: ${state} (p50 column: the first request, median)`, lines);
}

if (flags.clean) {
  for (const path of [widePath, tallPath]) if (exists(path)) Deno.removeSync(path);
  console.log(`\nremoved the files in ${DIR}`);
}

/** What the first answer said of its counts: "12 of 100 counted", "count 20,000,000", "≥10,000". */
function shownCount(body: string, title: string): string {
  if (!body.trimStart().startsWith("{")) {
    const count = /: (&ge;)?([\d,]+) rows?/.exec(title);
    return count ? `; shows ${count[1] ? "≥" : ""}${count[2]} rows` : "";
  }
  const data = JSON.parse(body);
  if (Array.isArray(data.tables)) {
    const known = data.tables.filter((t: { count: unknown }) => typeof t.count === "number");
    return `; counts shown: ${known.length} of ${data.tables.length}`;
  }
  if ("count" in data) return `; count: ${data.count === null ? "none" : fmt(data.count)}`;
  return "";
}
