/**
 * The varied mix against its floor (issue 42 item 2): the same requests' SQL run directly through
 * the binding on as many threads as the machine has cores. A list of mix URLs (every one
 * different: filters, sorts, rows, facets, searches, deep pages, HTML; the kinds and weights of
 * `bench/lib/mix.ts`) is asked once of a server with `trace_debug` and no caches, which records the
 * SQL each runs (`_trace=1`); the floor runs those statements, URL by URL, on one connection per
 * core; then a fresh server, started with the plain command, answers the same list under wrk (1
 * thread, 16 connections). Target: Vitrine's rate ≥ 0.8x the floor's. Also printed: the
 * statements that take most of the floor's time.
 *
 *   deno run -A bench/mix_floor.ts [--rows=500000] [--urls=2000] [--seconds=5]
 *
 * @module
 */

import { buildBenchDatabase, DISTRICTS, SPECIES, STREETS } from "./bench_db.ts";
import { wrk } from "./lib/wrk.ts";
import { cpuMs, machine } from "./lib/proc.ts";
import { freePort, startServer } from "./lib/process.ts";
import { fmt, ms } from "./lib/report.ts";
import type { BindParams } from "../src/sqlite/values.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const ROWS = Number(flags.rows ?? 500_000);
const URLS = Number(flags.urls ?? 2000);
const SECONDS = Number(flags.seconds ?? 5);
const CORES = navigator.hardwareConcurrency;

/** A seeded generator (mulberry32), so that every run asks the same URLs. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` mix URLs: the kinds and weights of `mixScript` (bench/lib/mix.ts). */
function mixUrls(count: number, seed = 1): string[] {
  const next = random(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]) => list[int(0, list.length - 1)];
  const id = () => int(1, ROWS);
  const pad = (n: number) => String(n).padStart(2, "0");
  const date = () => `${int(1960, 2019)}-${pad(int(1, 12))}-${pad(int(1, 28))}`;
  const statuses = ["healthy", "fair", "poor", "dead"];
  const columns = ["species", "planted", "height", "district_id", "address", "status"];
  const q = encodeURIComponent;
  const kinds: [number, () => string][] = [
    [25, () => `/bench/trees/${id()}.json`],
    [8, () => `/bench/trees/${id()}`],
    [
      14,
      () =>
        `/bench/trees.json?species=${q(pick(SPECIES))}&_sort=${pick(columns)}&_size=${
          int(10, 100)
        }`,
    ],
    [8, () => `/bench/trees.json?height__gt=${int(0, 299) / 10}&district_id=${int(1, DISTRICTS)}`],
    [10, () => `/bench/trees.json?_search=${q(pick(STREETS))}&_size=${int(5, 50)}`],
    [8, () => `/bench/trees.json?_next=${id()}&_size=${int(10, 100)}`],
    [6, () => `/bench/trees.json?_sort=planted&_next=${date()},${id()}`],
    [
      8,
      () =>
        `/bench/trees?status=${pick(statuses)}&_sort_desc=height&_next=${int(0, 299) / 10},${id()}`,
    ],
    [5, () => `/bench/trees.json?_facet=status&species=${q(pick(SPECIES))}&_size=${int(1, 20)}`],
    [8, () => `/bench/districts.json?_size=${int(1, 15)}&population__gt=${int(10000, 30000)}`],
  ];
  const urls: string[] = [];
  while (urls.length < count) {
    let r = int(1, 100);
    for (const [weight, make] of kinds) {
      r -= weight;
      if (r <= 0) {
        urls.push(make());
        break;
      }
    }
  }
  return urls;
}

type Statement = [string, BindParams | null];

/** The SQL statements `url` runs, from its `_trace=1` (JSON, or the HTML page's trace block). */
async function tracedSql(base: string, url: string): Promise<Statement[]> {
  const response = await fetch(`${base}${url}${url.includes("?") ? "&" : "?"}_trace=1`);
  const text = await response.text();
  let traces: { type: string; database: string; sql: string; params: BindParams | null }[] = [];
  if (url.includes(".json")) traces = JSON.parse(text)._trace?.traces ?? [];
  else {
    const block = /<pre>(\{[\s\S]*?)<\/pre>/.exec(text)?.[1];
    const unescaped = block?.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    if (unescaped) traces = JSON.parse(unescaped).traces ?? [];
  }
  // The bench file's statements only (not the internal database's).
  return traces.filter((t) => t.type === "sql" && t.database === "bench")
    .map((t) => [t.sql, t.params ?? null]);
}

const dir = Deno.makeTempDirSync({ prefix: "vitrine-mix-floor-" });
const path = `${dir}/bench.db`;
buildBenchDatabase(path, ROWS);
const urls = mixUrls(URLS);
console.log(`# The varied mix against its SQL floor (issue 42 item 2)\n\n${machine()}`);

// 1. What each URL runs: a server with traces and no caches, each URL asked once after a warm-up.
const tracePort = freePort();
const tracer = await startServer(
  [
    Deno.execPath(),
    "run",
    "-A",
    "cli.ts",
    "serve",
    "-i",
    path,
    "-p",
    String(tracePort),
    "--no-access-log",
    "-s",
    "trace_debug",
    "1",
    "-s",
    "query_cache_mb",
    "0",
    "-s",
    "page_cache_mb",
    "0",
  ],
  tracePort,
  "/-/versions.json",
);
const requests: Statement[][] = [];
try {
  for (const url of urls) requests.push(await tracedSql(tracer.base, url));
} finally {
  await tracer.stop();
}
const statements = requests.reduce((n, list) => n + list.length, 0);

// 2. The floor: those statements through the binding, one connection per core.
async function floorRun(): Promise<
  { ms: number; times: Map<string, number>; perUrl: number[] }
> {
  const shares: Statement[][][] = Array.from({ length: CORES }, () => []);
  requests.forEach((list, i) => shares[i % CORES].push(list));
  const t0 = performance.now();
  const answers = await Promise.all(
    shares.map((share) =>
      new Promise<{ ms: number; times: [string, number][]; perRequest: number[] }>(
        (resolve, reject) => {
          const worker = new Worker(new URL("./lib/floor_worker.ts", import.meta.url), {
            type: "module",
          });
          worker.onmessage = (event) => (worker.terminate(), resolve(event.data));
          worker.onerror = (event) => (worker.terminate(), reject(new Error(event.message)));
          worker.postMessage({ path, requests: share });
        },
      )
    ),
  );
  const times = new Map<string, number>();
  for (const answer of answers) {
    for (const [sql, time] of answer.times) times.set(sql, (times.get(sql) ?? 0) + time);
  }
  // URL i was the (i / CORES)th request of share i % CORES.
  const perUrl = urls.map((_, i) => answers[i % CORES].perRequest[Math.floor(i / CORES)]);
  return { ms: performance.now() - t0, times, perUrl };
}
await floorRun(); // warms the file's pages and the code
const floors = [await floorRun(), await floorRun()].sort((a, b) => a.ms - b.ms);
const floor = floors[0];
/**
 * The floor's rate over the first `n` URLs, those wrk asked for (in order, the list over again
 * past its end): their statements' time shared by the cores.
 */
function floorRps(n: number): number {
  let ms = 0;
  for (let i = 0; i < n; i++) ms += floor.perUrl[i % URLS];
  return n / (ms / CORES / 1000);
}

// 3. Vitrine on the same URLs, in the same order, with the plain command.
const script = `${dir}/urls.lua`;
Deno.writeTextFileSync(
  script,
  `local urls = {${urls.map((u) => JSON.stringify(u)).join(",\n")}}
local i = 0
request = function()
  i = i % #urls + 1
  return wrk.format("GET", urls[i])
end
`,
);
const port = freePort();
const server = await startServer(
  [
    Deno.execPath(),
    "run",
    "-A",
    "cli.ts",
    "serve",
    "-i",
    path,
    "-p",
    String(port),
    "--no-access-log",
  ],
  port,
  "/-/versions.json",
);
let result;
let cpu;
try {
  await wrk(`${server.base}/`, { script, seconds: 2 });
  const before = cpuMs(server.pid);
  result = await wrk(`${server.base}/`, { script, seconds: SECONDS });
  cpu = (cpuMs(server.pid) - before) / Math.max(1, result.requests);
} finally {
  await server.stop();
}
Deno.removeSync(dir, { recursive: true });

console.log(
  `${fmt(URLS)} URLs running ${fmt(statements)} statements (${fmt(statements / URLS, 1)} a URL); ` +
    `floor: the faster of two runs on ${CORES} threads (${
      floors.map((f) => ms(f.ms)).join(", ")
    }), over the ${fmt(result.requests)} URLs wrk asked for.\n`,
);
console.log(
  "| | req/s | p50 | p99 | failed | CPU ms/request | ratio to the floor | target | met |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---|:-:|");
const floorRate = floorRps(result.requests);
console.log(
  `| floor: the same URLs' SQL through the binding, ${CORES} threads | ${
    fmt(floorRate)
  } | | | | | | | |`,
);
const ratio = result.rps / floorRate;
console.log(
  `| Vitrine, wrk 1 thread 16 connections | ${fmt(result.rps)} | ${ms(result.p50)} | ${
    ms(result.p99)
  } | ${fmt(result.errors)} | ${fmt(cpu, 2)} | ${fmt(ratio, 2)}x | ≥ 0.8x | ${
    ratio >= 0.8 ? "yes" : "**no**"
  } |`,
);
const total = [...floor.times.values()].reduce((a, b) => a + b, 0);
console.log("\nWhere the floor's time goes (statements by their share of it):\n");
console.log("| share | ms in all | statement |");
console.log("|---:|---:|---|");
const top = [...floor.times].sort((a, b) => b[1] - a[1]).slice(0, 8);
for (const [sql, time] of top) {
  const text = sql.replace(/\s+/g, " ").slice(0, 140).replaceAll("|", "\\|");
  console.log(`| ${fmt((100 * time) / total, 1)}% | ${fmt(time)} | \`${text}\` |`);
}
