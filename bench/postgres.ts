/**
 * Issue 43's numbers: a PostgreSQL table of 5,000,000 rows (a throw-away cluster, see
 * tests/fixtures/pg_cluster.ts) served by Vitrine started with the plain command: the time of its
 * table page, of a facet and of a streamed CSV export of every row, with the peak `RssAnon` of
 * the server during each; beside each, its floor in the same run — the same SQL through the
 * driver alone (the export's through a server-side cursor), so the ratios tell what Vitrine adds.
 *
 *   deno run -A bench/postgres.ts [--rows=5000000]
 *
 * The machine is usually shared: compare ratios, and run it more than once. Each line also
 * gives the CPU time spent on it — the server's (every thread) for Vitrine, this process's for
 * the floor — which a loaded machine disturbs far less than the times.
 *
 * @module
 */

import postgres from "postgres";
import { startCluster } from "../tests/fixtures/pg_cluster.ts";
import { freePort, startServer } from "./lib/process.ts";
import { cpuMs, machine, rssSampler, rssSplit } from "./lib/proc.ts";
import { fmt, ms } from "./lib/report.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const ROWS = Number(flags.rows ?? 5_000_000);

console.log(`# PostgreSQL: ${fmt(ROWS)} rows\n\n${machine()}\n`);
const cluster = await startCluster();
const started = performance.now();
await cluster.psql("create database bench");
await cluster.psql(
  `create table trees (id int primary key, species text not null, height real,
    planted date, ward int);
  insert into trees select g, 'species ' || (g % 40), (g % 300) / 10.0,
    date '2000-01-01' + (g % 7000), g % 25 from generate_series(1, ${ROWS}) g;
  analyze trees;`,
  "bench",
);
console.log(`table built in ${fmt((performance.now() - started) / 1000, 1)} s\n`);

const port = freePort();
const server = await startServer(
  [
    Deno.execPath(),
    "run",
    "-A",
    "cli.ts",
    cluster.url("bench"),
    "-p",
    String(port),
    // A facet over 5,000,000 rows takes longer than the default 200 ms (on SQLite too), and the
    // whole export is more than the default 100 MB of CSV.
    ...["-s", "facet_time_limit_ms", "20000", "-s", "sql_time_limit_ms", "20000"],
    ...["-s", "max_csv_mb", "0"],
  ],
  port,
  "/-/versions.json",
);
const anonStart = rssSplit(server.pid).private;

/**
 * Time (best of `runs`), bytes and peak RssAnon of GET `path`, after one warm-up; `check` must
 * hold for the answer's text (its start, for big answers).
 */
async function measure(path: string, runs = 3, check?: RegExp) {
  const get = async () => {
    const t0 = performance.now();
    const response = await fetch(server.base + path, {
      headers: { "accept-encoding": "identity" },
    });
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    let bytes = 0;
    let head = "";
    for await (const chunk of response.body!) {
      if (head.length < 4000) head += new TextDecoder().decode(chunk);
      bytes += chunk.length;
    }
    if (check && !check.test(head)) throw new Error(`${path}: ${head.slice(0, 300)}`);
    return { ms: performance.now() - t0, bytes };
  };
  await get();
  const sampler = rssSampler(server.pid);
  let best = Infinity;
  let bytes = 0;
  let cpu = Infinity;
  for (let i = 0; i < runs; i++) {
    const before = cpuMs(server.pid);
    const result = await get();
    cpu = Math.min(cpu, cpuMs(server.pid) - before);
    best = Math.min(best, result.ms);
    bytes = result.bytes;
  }
  sampler.stop();
  return { ms: best, bytes, cpu, peak: sampler.privatePeak() };
}

/** CPU milliseconds of this process so far (the floor's driver runs here). */
const ownCpuMs = () => cpuMs(Deno.pid);

/**
 * The floor of a line: its SQL through the driver alone, in this process (best of `runs`); an
 * export's rows read through a server-side cursor, as Vitrine reads them, and dropped.
 */
const direct = postgres(cluster.url("bench"), { max: 1, onnotice: () => {} });
async function floor(
  statements: string[],
  cursor: boolean,
  runs = 3,
  expected = ROWS,
): Promise<{ ms: number; cpu: number }> {
  let best = Infinity;
  let cpu = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const cpu0 = ownCpuMs();
    for (const sql of statements) {
      if (!cursor) await direct.unsafe(sql, [], { prepare: false } as never).values();
      else {
        let rows = 0;
        for await (const chunk of direct.unsafe(sql).values().cursor(5000)) rows += chunk.length;
        if (rows !== expected) throw new Error(`read ${rows} rows`);
      }
    }
    best = Math.min(best, performance.now() - t0);
    cpu = Math.min(cpu, ownCpuMs() - cpu0);
  }
  return { ms: best, cpu };
}

const lines = [
  {
    name: "table page (first 100 rows, with its count)",
    path: "/bench/trees",
    sql: ["select count(*) from trees", "select * from trees order by id limit 101"],
  },
  {
    name: "facet: species, over every row",
    path: "/bench/trees.json?_facet=species&_size=0&_facet_size=10",
    sql: ["select species, count(*) from trees group by 1 order by 2 desc, 1 limit 11"],
    check: /"value":\s*"species \d+"/,
  },
  {
    name: "CSV export of the first 50,000 rows (_stream=on)",
    path: "/bench/trees.csv?_stream=on&id__lte=50000",
    sql: ["select * from trees where id <= 50000 order by id"],
    cursor: true,
    rows: Math.min(ROWS, 50000),
  },
  {
    name: "TSV export of the first 50,000 rows (_stream=on)",
    path: "/bench/trees.tsv?_stream=on&id__lte=50000",
    sql: ["select * from trees where id <= 50000 order by id"],
    cursor: true,
    rows: Math.min(ROWS, 50000),
  },
  {
    name: "NDJSON export of the first 50,000 rows (_stream=on)",
    path: "/bench/trees.ndjson?_stream=on&id__lte=50000",
    sql: ["select * from trees where id <= 50000 order by id"],
    cursor: true,
    rows: Math.min(ROWS, 50000),
  },
  {
    name: "custom SQL's CSV of 50,000 rows (_stream=on)",
    path: `/bench/-/query.csv?_stream=on&sql=${
      encodeURIComponent("select * from trees where id <= 50000 order by id")
    }`,
    sql: ["select * from trees where id <= 50000 order by id"],
    cursor: true,
    rows: Math.min(ROWS, 50000),
  },
  {
    name: `CSV export of all ${fmt(ROWS)} rows (_stream=on)`,
    path: "/bench/trees.csv?_stream=on&_size=max",
    sql: ["select * from trees order by id"],
    cursor: true,
    runs: 1,
  },
];

console.log(
  "| what | Vitrine | floor (the SQL through the driver) | ratio | Vitrine CPU | floor CPU | CPU ratio | bytes | server peak RssAnon |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const line of lines) {
  const result = await measure(line.path, line.runs ?? 3, line.check);
  const base = await floor(line.sql, line.cursor ?? false, line.runs ?? 3, line.rows);
  console.log(
    `| ${line.name} | ${ms(result.ms)} | ${ms(base.ms)} | ${fmt(result.ms / base.ms, 2)}x | ${
      ms(result.cpu)
    } | ${ms(base.cpu)} | ${
      // Only an export's floor spends CPU here; the others wait for the server.
      line.cursor ? `${fmt(result.cpu / base.cpu, 2)}x` : ""} | ${fmt(result.bytes)} | ${
      fmt(result.peak / 1e6)
    } MB |`,
  );
}
console.log(`\nload average at the end: ${Deno.loadavg().map((n) => fmt(n, 1)).join(" ")}`);
console.log(`\nserver RssAnon after start: ${fmt(anonStart / 1e6)} MB`);

await direct.end();
await server.stop();
await cluster.stop();
