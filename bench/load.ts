/**
 * Vitrine under load, against floors measured in the same run (issue 13's targets). Builds a
 * 500k-row database, serves it from a separate `vitrine serve` process (immutable as `bench`, a
 * mutable copy as `mut`), drives it with wrk and prints one table per section: endpoint, req/s,
 * latency, server CPU per request, the floor and the ratio.
 *
 *   deno run -A bench/load.ts [--rows=500000] [--seconds=5] [--only=engine,sql,...] [--keep]
 *     [--processes=N] [--from-source]
 *
 * The server runs as the published image runs it: the one-file bundle (`scripts/bundle.ts`, built
 * into the run's temporary folder), from a copy of Deno of its own. `--from-source` serves from
 * the source tree instead (`bench/lib/vitrine_server.ts`); pages and exports run the same code,
 * but Deno keeps each TypeScript module's source and source map in the heap: about 8 MB more.
 *
 * Sections: engine (hello-world floor; each case also run in-process, without sockets or wrk,
 * to tell Vitrine's own cost from the network stack's and the load generator's, and served by
 * `--processes N`), sql (the page's own SQL through the binding), cache
 * (immutable: cached SQL, ETag/304), html, mix (every request a different URL), runaway (four
 * runaway queries during the mix), stream (`sqlite3 -csv` floor, RSS, slow client), gzip, idle
 * (the server's memory after the sections above, and again after 65 s without requests).
 * The machine is usually shared: compare ratios to floors, not absolute numbers.
 */

import { buildBenchDatabase } from "./bench_db.ts";
import { wrk, type WrkResult } from "./lib/wrk.ts";
import { cpuMs, machine, rssBytes, rssSampler, rssSplit, treeCpuMs } from "./lib/proc.ts";
import { fastScript, mixScript } from "./lib/mix.ts";
import { freePort, soloDenoPath, startServer } from "./lib/process.ts";
import type { BindParams } from "../src/sqlite/values.ts";
import { V8_FLAGS_OPTION } from "../src/util/v8_flags.ts";
import type { Coding } from "../src/app/compression.ts";
import { fmt, type Line, memoryText, ms, table } from "./lib/report.ts";
import { compressAlone, helloMemory, rawLength, sqlFloor, timeCommand } from "./lib/floors.ts";
import { QUEUE_WAIT_FACTOR } from "../src/db/pool_jobs.ts";
import { buildBundle } from "../scripts/bundle.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const ROWS = Number(flags.rows ?? 500_000);
const SECONDS = Number(flags.seconds ?? 5);
/** `--processes=N` for the engine section's second server (1 skips it); default one per core. */
const PROCESSES = Number(flags.processes ?? Math.min(4, navigator.hardwareConcurrency));
const ONLY = flags.only ? new Set(flags.only.split(",")) : null;
const FROM_SOURCE = flags["from-source"] === "1";
const want = (section: string) => !ONLY || ONLY.has(section);

// --- set-up -------------------------------------------------------------------------------

const dir = Deno.makeTempDirSync({ prefix: "vitrine-load-" });
const benchPath = `${dir}/bench.db`;
const mutPath = `${dir}/mut.db`;
const started = performance.now();
buildBenchDatabase(benchPath, ROWS);
Deno.copyFileSync(benchPath, mutPath);
const program = FROM_SOURCE
  ? "bench/lib/vitrine_server.ts"
  : await buildBundle({ output: `${dir}/vitrine.js` });
console.log(`# Vitrine load benchmark\n\n${machine()}`);
console.log(
  `${ROWS.toLocaleString("en")} rows (${(Deno.statSync(benchPath).size / 1e6).toFixed(0)} MB)` +
    ` generated in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `wrk 1 thread, ${SECONDS} s per line; Vitrine served ` +
    (FROM_SOURCE ? "from the source tree" : "from the bundle, as the published image runs it"),
);

const helloPort = freePort();
const hello = await startServer(
  [Deno.execPath(), "run", "-A", "bench/hello_server.ts", String(helloPort)],
  helloPort,
);
/**
 * `vitrine serve` on the bench files (immutable as `bench`, the mutable copy as `mut`), run as
 * shipped: every launch command Vitrine writes passes these V8 flags (issue 17).
 */
function serveBenchFiles(port: number, options: string[], role = "vitrine") {
  return startServer([
    soloDenoPath(role),
    "run",
    "-A",
    V8_FLAGS_OPTION,
    program,
    "serve",
    "-i",
    benchPath,
    mutPath,
    "--port",
    String(port),
    ...options,
  ], port);
}

const port = freePort();
const server = await serveBenchFiles(port, ["-s", "trace_debug", "1"]);
const base = server.base;

// --- measuring helpers ------------------------------------------------------------------

/** wrk against the Vitrine server, with its CPU time per request. */
async function load(url: string, options: Parameters<typeof wrk>[1] = {}, pid = server.pid) {
  const before = treeCpuMs(pid);
  const result = await wrk(url, { seconds: SECONDS, ...options });
  const cpu = ((treeCpuMs(pid) - before) * 1000) / Math.max(1, result.requests);
  if (result.errors) {
    const sockets = result.errors - result.nonSuccess;
    console.log(
      `  ! ${url}: ${result.errors} errors of ${result.requests} ` +
        `(${result.nonSuccess} answers not 2xx/3xx, ${sockets} socket errors)`,
    );
  }
  return { ...result, cpu };
}

/** Warms a URL (introspection, caches, JIT) before it is measured. */
async function warm(url: string, times = 3): Promise<void> {
  for (let i = 0; i < times; i++) {
    const response = await fetch(url);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
  }
}

/**
 * Warms a line's requests as a server that has been running meets them: `warm` first (it fails
 * on an error answer), then two seconds of the same wrk load, so that the compiler has optimised
 * the code they run and SQLite's page cache holds what they read. After three requests only, the
 * first seconds of random row pages ran at two thirds of the rate they settle at, with a p99 of
 * 70 ms.
 */
async function warmUnderLoad(url: string, options: Parameters<typeof wrk>[1] = {}) {
  await warm(url);
  await wrk(url, { ...options, seconds: 2 });
}

/** The SQL statements one request runs (from `?_trace=1`), each distinct one once. */
async function tracedSql(url: string): Promise<{ all: number; distinct: [string, BindParams][] }> {
  const sep = url.includes("?") ? "&" : "?";
  const body = await (await fetch(`${url}${sep}_trace=1`)).json();
  const traces = (body._trace?.traces ?? []) as { type: string; sql: string; params: BindParams }[];
  const sql = traces.filter((t) => t.type === "sql");
  const seen = new Map<string, [string, BindParams]>();
  for (const t of sql) seen.set(JSON.stringify([t.sql, t.params]), [t.sql, t.params]);
  return { all: sql.length, distinct: [...seen.values()] };
}

/** `path` (its database by its first segment) through the service's handler, in a process of its own. */
async function inProcess(path: string): Promise<{ rps: number; cpu_us: number }> {
  const file = path.startsWith("/mut/") ? `--mutable=${mutPath}` : `--immutable=${benchPath}`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      V8_FLAGS_OPTION,
      "bench/lib/in_process.ts",
      file,
      `--path=${path.replace("/trees/1.json", "/trees/{id}.json")}`,
      `--ids=${ROWS}`,
      `--seconds=${Math.min(SECONDS, 3)}`,
    ],
    cwd: new URL("..", import.meta.url).pathname,
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`in-process run of ${path} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

const helloLine = async (path = "/"): Promise<WrkResult & { cpu: number }> =>
  await load(`${hello.base}${path}`, {}, hello.pid);

const scratch = (name: string, text: string) => {
  const path = `${dir}/${name}`;
  Deno.writeTextFileSync(path, text);
  return path;
};
const results: Record<string, Line[]> = {};

// --- 1. engine overhead -------------------------------------------------------------------

if (want("engine")) {
  const floor = await helloLine();
  const floorText = `hello world ${fmt(floor.rps)} req/s, ${fmt(floor.cpu)} µs`;
  // Targets were set where a hello-world server did ~85,000 req/s; scale them to this run's.
  const scale = floor.rps / 85_000;
  // A response the size of a row page goes out in two writes where `{"ok":true}` takes one
  // (bench/hello_server.ts): the floor row pages are compared with.
  const rowFloor = await helloLine("/row");
  const rowFloorText = `hello world, row-sized ${fmt(rowFloor.rps)} req/s, ${fmt(rowFloor.cpu)} µs`;
  const lines: Line[] = [
    { endpoint: "hello world (floor)", ...floor },
    { endpoint: "hello world, a row page's size and headers (floor for row JSON)", ...rowFloor },
  ];
  /** A wrk line against the hello-world floor and the target (scaled to this run's floor). */
  const httpLine = (
    endpoint: string,
    r: WrkResult & { cpu: number },
    target: number,
    rowSized = false,
  ): Line => ({
    endpoint,
    ...r,
    floor: rowSized ? rowFloorText : floorText,
    ratio: `${fmt((100 * r.rps) / (rowSized ? rowFloor : floor).rps, 1)}%`,
    target: `≥ ${fmt(target)} (${fmt(target * scale)} scaled)`,
    met: r.rps >= target * Math.min(1, scale),
  });
  const rowScript = scratch(
    "rows.lua",
    `math.randomseed(3)\nrequest = function() return wrk.format("GET", "/bench/trees/" .. math.random(${ROWS}) .. ".json") end\n`,
  );
  const cases: [string, string, number, object][] = [
    ["100-row table JSON", "/bench/trees.json?_size=100", 6000, {}],
    ["row JSON (random ids)", "/bench/trees/1.json", 15000, { script: rowScript }],
    ["15-row table JSON", "/bench/districts.json", 10000, {}],
    ["100-row table JSON, mutable db", "/mut/trees.json?_size=100", 6000, {}],
  ];
  for (const [name, path, target, options] of cases) {
    await warmUnderLoad(base + path, options);
    const r = await load(base + path, options);
    lines.push(httpLine(`${name}: \`${path}\``, r, target, path.includes("/trees/1.json")));
    // The same requests without sockets or wrk: what Vitrine's own work costs (every page
    // built: the page cache is off there).
    const alone = await inProcess(path);
    lines.push({
      endpoint: `${name}, engine alone (in-process, no HTTP, no page cache)`,
      rps: alone.rps,
      cpu: alone.cpu_us,
      target: `≥ ${fmt(target)}`,
      met: alone.rps >= target,
    });
  }
  // The fixed URLs above are answered from the page cache after the first request (a hot
  // page); the same from a server without it, where every request builds its page.
  {
    const port = freePort();
    const uncached = await serveBenchFiles(port, ["-s", "page_cache_mb", "0", "--no-access-log"]);
    for (const [name, path, target, options] of cases) {
      if (path.includes("/trees/1.json")) continue; // random ids: no page repeats anyway
      await warmUnderLoad(uncached.base + path, options);
      const r = await load(uncached.base + path, options, uncached.pid);
      lines.push(httpLine(`${name}, page cache off`, r, target));
    }
    await uncached.stop();
  }
  // The same pages from `serve --processes N` (one copy per core, SO_REUSEPORT).
  if (PROCESSES > 1) {
    const port = freePort();
    const copies = await serveBenchFiles(port, [
      "--processes",
      String(PROCESSES),
      "--no-access-log",
    ]);
    for (const [name, path, target, options] of cases) {
      // Each copy has its own caches and JIT: warmed all, through as many connections.
      await warmUnderLoad(copies.base + path, options);
      const r = await load(copies.base + path, options, copies.pid);
      const rowSized = path.includes("/trees/1.json");
      lines.push(httpLine(`${name}, \`--processes ${PROCESSES}\``, r, target, rowSized));
    }
    await copies.stop();
  }
  table("Engine overhead (target 1): req/s at 16 connections vs a Deno hello-world", lines);
  results.engine = lines;
}

// --- 2. SQLite-bound pages against their own SQL --------------------------------------------

const SQL_PAGES: [string, string][] = [
  ["sort + filter", "trees.json?species=Oak&_sort=planted"],
  ["facet", "trees.json?_facet=species"],
  ["search", "trees.json?_search=Mill"],
  ["count", "trees.json?_extra=count&status=poor"],
];

if (want("sql")) {
  const lines: Line[] = [];
  // Every query must run: a server of its own without the query cache (which keeps a mutable
  // file's answers too, until its next write).
  const uncachedPort = freePort();
  const uncached = await serveBenchFiles(uncachedPort, [
    "-s",
    "trace_debug",
    "1",
    "-s",
    "query_cache_mb",
    "0",
    "-s",
    "page_cache_mb",
    "0",
  ]);
  for (const [name, path] of SQL_PAGES) {
    const url = `${uncached.base}/mut/${path}`;
    await warm(url);
    const { all, distinct } = await tracedSql(url);
    const floor = sqlFloor(mutPath, distinct);
    const one = await load(url, { connections: 1 }, uncached.pid);
    const many = await load(url, { connections: 16 }, uncached.pid);
    const ratio = one.p50 / floor;
    lines.push({
      endpoint: `${name}: \`/mut/${path}\``,
      rps: many.rps,
      p50: one.p50,
      p99: many.p99,
      cpu: one.cpu,
      floor: `${distinct.length} statement(s) ${ms(floor)}${
        all > distinct.length ? `; ran ${all}` : ""
      }`,
      ratio: `${fmt(ratio, 2)}x`,
      target: "≤ 1.25x",
      met: ratio <= 1.25,
      note: "p50 at 1 connection",
    });
  }
  await uncached.stop();
  table(
    "SQLite-bound pages (target 2): mutable copy, query cache off, server p50 at 1 connection vs the same SQL through the binding",
    lines,
  );
  results.sql = lines;
}

// --- 3. immutable: caches, ETag/304 -----------------------------------------------------------

if (want("cache")) {
  const lines: Line[] = [];
  const floor = await helloLine();
  lines.push({ endpoint: "hello world (floor)", ...floor });
  for (const [name, path] of SQL_PAGES) {
    const url = `${base}/bench/${path}`;
    await warm(url);
    const r = await load(url);
    lines.push({
      endpoint: `${name}, cached: \`/bench/${path}\``,
      ...r,
      floor: `${fmt(floor.rps)} req/s`,
      ratio: `${fmt((100 * r.rps) / floor.rps, 1)}%`,
    });
  }
  const hot = `${base}/bench/${SQL_PAGES[0][1]}`;
  const etag = (await fetch(hot)).headers.get("etag");
  await (await fetch(hot)).body?.cancel();
  if (etag) {
    const r = await load(hot, { headers: { "If-None-Match": etag } });
    lines.push({
      endpoint: `hot URL revalidated (304): \`/bench/${SQL_PAGES[0][1]}\``,
      ...r,
      floor: `${fmt(floor.rps)} req/s`,
      ratio: `${fmt((100 * r.rps) / floor.rps, 1)}%`,
      target: "≥ 10,000",
      met: r.rps >= 10_000 * Math.min(1, floor.rps / 85_000),
    });
  } else {
    lines.push({ endpoint: "hot URL revalidated (304)", note: "no ETag sent", met: false });
  }
  table("Immutable database (target 3): cached SQL and conditional requests", lines);
  results.cache = lines;
}

// --- 4. HTML table page ------------------------------------------------------------------------

if (want("html")) {
  const lines: Line[] = [];
  const floor = await helloLine();
  lines.push({ endpoint: "hello world (floor)", ...floor });
  for (const path of ["/bench/trees", "/bench/trees?species=Oak&_sort=planted"]) {
    await warmUnderLoad(base + path);
    const r = await load(base + path);
    lines.push({
      endpoint: `HTML \`${path}\``,
      ...r,
      floor: `${fmt(floor.rps)} req/s`,
      ratio: `${fmt((100 * r.rps) / floor.rps, 1)}%`,
      target: "≥ 400",
      met: r.rps >= 400,
    });
  }
  table("HTML table page on 500k rows (target 6)", lines);
  results.html = lines;
}

// --- 5. the varied mix, then with four runaway queries ----------------------------------------

// A script per use, each with its own seed: wrk replays a seed's URLs in the same order, so a line
// run after another with the same script met the first one's answers in the query cache.
const mix = scratch("mix.lua", mixScript("bench", ROWS, 1));
const fast = scratch("fast.lua", fastScript("bench", ROWS, 2));
const mixWarm = scratch("mix-warm.lua", mixScript("bench", ROWS, 3));
const fastWarm = scratch("fast-warm.lua", fastScript("bench", ROWS, 4));
const mixRunaway = scratch("mix-runaway.lua", mixScript("bench", ROWS, 5));
const fastRunaway = scratch("fast-runaway.lua", fastScript("bench", ROWS, 6));

if (want("mix")) {
  const lines: Line[] = [];
  const r = await load(`${base}/`, { script: mix });
  lines.push({ endpoint: "varied mix, every request a different URL", ...r });
  const quiet = await load(`${base}/`, { script: fast, connections: 4 });
  lines.push({ endpoint: "fast requests alone (row pages, 15-row table)", ...quiet });
  table("Varied mix (16 connections)", lines);
  results.mix = lines;
}

if (want("runaway")) {
  const limit = 1000;
  const runaway = `${base}/bench/-/query.json?sql=${
    encodeURIComponent(
      "with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r",
    )
  }`;
  // Measured warm, as a server runs most of its life: workers started, pages and the pool's
  // query costs known (a cold start otherwise falls inside the measured seconds).
  await wrk(`${base}/`, { script: mixWarm, connections: 12, seconds: 2 });
  await wrk(`${base}/`, { script: fastWarm, connections: 4, seconds: 2 });
  const durations: number[] = [];
  let stop = false;
  const loops = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const t0 = performance.now();
      const response = await fetch(runaway);
      await response.arrayBuffer();
      durations.push(performance.now() - t0);
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  const [mixed, fastOnes] = await Promise.all([
    load(`${base}/`, { script: mixRunaway, connections: 12 }),
    wrk(`${base}/`, { script: fastRunaway, connections: 4, seconds: SECONDS }),
  ]);
  stop = true;
  await Promise.all(loops);
  durations.sort((a, b) => a - b);
  const lines: Line[] = [
    { endpoint: "varied mix (12 connections)", ...mixed },
    {
      endpoint: "fast requests (4 connections)",
      ...fastOnes,
      target: "p99 < 50 ms",
      met: fastOnes.p99 < 50,
    },
    {
      endpoint: `runaway queries (4 at a time, limit ${limit} ms)`,
      rps: durations.length / SECONDS,
      p50: durations[Math.floor(durations.length / 2)],
      p99: durations.at(-1),
      floor: `limit ${limit} ms`,
      ratio: `${fmt(durations.at(-1)! / limit, 2)}x`,
      // Its wait for a worker is not charged to its limit (up to QUEUE_WAIT_FACTOR times it,
      // db/pool_jobs.ts): a runaway stops `limit` into its run, after what it waited.
      target: `none outlives its limit plus its wait (≤ ${1 + QUEUE_WAIT_FACTOR}× the limit)`,
      met: durations.at(-1)! <= limit * (1 + QUEUE_WAIT_FACTOR) + 100,
      note: `${durations.length} stopped; p99 column = slowest`,
    },
  ];
  table("Four runaway queries during the varied mix (target 4)", lines);
  results.runaway = lines;
}

// --- 6. streams --------------------------------------------------------------------------------

/**
 * Downloads `url`, timing it and sampling the server's RSS. Uncompressed unless `headers` say
 * otherwise: Deno's fetch asks for gzip/br by itself, and `sqlite3 -csv`, the floor, writes plain
 * text (compressed exports are measured in the compression section).
 */
async function download(url: string, headers: Record<string, string> = {}, pid = server.pid) {
  const sampler = rssSampler(pid);
  const before = cpuMs(pid);
  const t0 = performance.now();
  const response = await fetch(url, { headers: { "accept-encoding": "identity", ...headers } });
  let bytes = 0;
  for await (const chunk of response.body!) bytes += chunk.length;
  const time = performance.now() - t0;
  const peak = sampler.stop();
  return { time, bytes, peak, privatePeak: sampler.privatePeak(), cpu: cpuMs(pid) - before };
}

if (want("stream")) {
  // A server of its own, as a deployed one is before its first export: after the sections above,
  // the caches (up to 48 MB) and the workers their load started would count with the exports.
  // From a copy of Deno of its own, which no other process maps (`lib/process.ts`).
  const fresh = await serveBenchFiles(freePort(), ["-s", "trace_debug", "1"], "vitrine-streams");
  const { pid, base } = fresh;
  const lines: Line[] = [];
  const floors: number[] = [];
  for (let i = 0; i < 3; i++) {
    floors.push(await timeCommand("sqlite3", ["-csv", benchPath, "select * from trees"]));
  }
  const floor = floors.sort((a, b) => a - b)[1];
  // NDJSON writes 2.5 times the bytes of CSV: `sqlite3 -json` (the same rows as one JSON array,
  // about as many bytes) is shown beside it as a like-for-like floor.
  const jsonFloors: number[] = [];
  for (let i = 0; i < 3; i++) {
    jsonFloors.push(await timeCommand("sqlite3", ["-json", benchPath, "select * from trees"]));
  }
  const jsonFloor = jsonFloors.sort((a, b) => a - b)[1];
  // Memory before any export: the idle server with its read workers started.
  const rssStart = rssBytes(pid);
  const memoryFloor = await helloMemory();
  console.log(
    `\nA fresh server's RSS before the exports: ${memoryText(rssSplit(pid))}.\n` +
      `Floor: a Deno hello-world with one idle worker and the same V8 flags, after 1,000 ` +
      `requests: ${memoryText(memoryFloor)}.`,
  );
  // One export first, as for every other page: a long-running server has its export code
  // compiled (the first export after start-up runs 20–30% slower).
  await download(`${base}/bench/trees.csv?_stream=on`, {}, pid);
  const streams: [string, string][] = [
    ["CSV, table", "/bench/trees.csv?_stream=on"],
    ["TSV, table", "/bench/trees.tsv?_stream=on"],
    ["NDJSON, table", "/bench/trees.ndjson?_stream=on"],
    ["CSV, view", "/bench/oaks.csv?_stream=on"],
    [
      "CSV, query",
      `/bench/-/query.csv?sql=${encodeURIComponent("select * from trees")}&_stream=on`,
    ],
  ];
  for (const [name, path] of streams) {
    // The median of three downloads (the highest memory of the three): one download on this
    // shared machine moved by up to a third from run to run.
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await download(base + path, {}, pid));
    runs.sort((a, b) => a.time - b.time);
    const d = {
      ...runs[1],
      peak: Math.max(...runs.map((run) => run.peak)),
      privatePeak: Math.max(...runs.map((run) => run.privatePeak)),
    };
    // What the export leaves behind, once the worker has shrunk its heap (worker_cursors.ts).
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = rssBytes(pid);
    const isWhole = !path.includes("oaks");
    lines.push({
      endpoint: `${name}: ${(d.bytes / 1e6).toFixed(1)} MB`,
      p50: d.time,
      cpu: d.cpu * 1000,
      floor: isWhole ? `sqlite3 -csv ${ms(floor)}` : "",
      ratio: isWhole ? `${fmt(d.time / floor, 2)}x` : "",
      target: isWhole ? "≤ 1.5x, RSS < 100 MB" : "RSS < 100 MB",
      met: (!isWhole || d.time / floor <= 1.5) && d.peak < 100e6,
      note: `peak RSS ${(d.peak / 1e6).toFixed(0)} MB (private ${
        (d.privatePeak / 1e6).toFixed(0)
      }), +${((d.peak - rssStart) / 1e6).toFixed(0)} MB; ${(after / 1e6).toFixed(0)} MB after${
        path.includes(".ndjson")
          ? `; sqlite3 -json ${ms(jsonFloor)}, ${fmt(d.time / jsonFloor, 2)}x`
          : ""
      }`,
    });
  }
  // A slow client: 1 MB/s for a few seconds; the server's memory must stay flat.
  {
    const sampler = rssSampler(pid);
    const response = await fetch(`${base}/bench/trees.csv?_stream=on`, {
      headers: { "accept-encoding": "identity" },
    });
    const reader = response.body!.getReader();
    const t0 = performance.now();
    let bytes = 0;
    const rss: number[] = [];
    while (performance.now() - t0 < 4000) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
      const due = bytes / 1e6 * 1000;
      const wait = due - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      rss.push(rssBytes(pid));
    }
    await reader.cancel();
    const peak = sampler.stop();
    lines.push({
      endpoint: `slow client at 1 MB/s: read ${(bytes / 1e6).toFixed(1)} MB in 4 s`,
      floor: `RSS before ${(rssStart / 1e6).toFixed(0)} MB`,
      target: "memory flat",
      met: peak - rssStart < 30e6 && peak < 100e6,
      note: `RSS ${(Math.min(...rss) / 1e6).toFixed(0)}–${(Math.max(...rss) / 1e6).toFixed(0)} MB`,
    });
  }
  table(
    "Streams of the 500k-row table (target 5); the p50 column is the median of three downloads",
    lines,
  );
  await fresh.stop();
  results.stream = lines;
}

// --- 7. compression ----------------------------------------------------------------------------

if (want("gzip")) {
  const lines: Line[] = [];
  // A JSON page kept by the page cache is compressed once per coding; one built for every
  // request (a server without the page cache) is compressed every time.
  const uncachedPort = freePort();
  const uncached = await serveBenchFiles(uncachedPort, ["-s", "page_cache_mb", "0"]);
  const cases: [string, string, { base: string; pid: number }, boolean][] = [
    ["HTML table page", "/bench/trees", server, false],
    ["100-row JSON, page cache (a hot page)", "/bench/trees.json?_size=100", server, true],
    ["100-row JSON, built for each request", "/bench/trees.json?_size=100", uncached, false],
  ];
  for (const [name, path, { base, pid }, kept] of cases) {
    let identityCpu = 0;
    for (const encoding of ["identity", "gzip", "br"]) {
      const response = await fetch(base + path, { headers: { "accept-encoding": encoding } });
      const body = new Uint8Array(await response.arrayBuffer()); // fetch decodes: raw size below
      const raw = await rawLength(base + path, encoding);
      const r = await load(base + path, { headers: { "Accept-Encoding": encoding } }, pid);
      const line: Line = {
        endpoint: `${name}, ${encoding}`,
        ...r,
        note: `${fmt(body.length)} bytes, ${fmt(raw)} sent` +
          (response.headers.get("content-encoding") ? "" : " (not compressed)"),
      };
      if (encoding === "identity") identityCpu = r.cpu;
      else {
        // The floor: the same bytes compressed at the server's level in this process. What the
        // server spends beyond the uncompressed page should be about that.
        const alone = compressAlone(encoding as Coding, body);
        line.floor = `compressing alone ${fmt(alone)} µs`;
        // Under a tenth of the page's own CPU, the difference is lost in the page's variation.
        line.ratio = kept
          ? "compressed once, kept"
          : alone * 10 < identityCpu
          ? "within noise"
          : `${((r.cpu - identityCpu) / alone).toFixed(2)}x`;
      }
      lines.push(line);
    }
  }
  await uncached.stop();
  for (const encoding of ["identity", "gzip", "br"]) {
    const d = await download(`${base}/bench/trees.csv?_stream=on`, {
      "accept-encoding": encoding,
    });
    lines.push({
      endpoint: `CSV stream, ${encoding}`,
      p50: d.time,
      cpu: d.cpu * 1000,
      ratio: `${fmt(await rawLength(`${base}/bench/trees.csv?_stream=on`, encoding))} bytes sent`,
      note: `peak RSS ${(d.peak / 1e6).toFixed(0)} MB`,
    });
  }
  table(
    "Compression (target 7): bytes on the wire and CPU cost; ratio: the server's CPU beyond the " +
      "uncompressed page, against compressing the same bytes alone",
    lines,
  );
  results.gzip = lines;
}

// --- 8. memory given back when idle ------------------------------------------------------------

if (want("idle")) {
  // After the sections above, every read worker has run and the caches are full. Spare workers
  // stop after 30 s idle; base ones after 60 s, the last releasing its memory instead.
  const threads = () => [...Deno.readDirSync(`/proc/${server.pid}/task`)].length;
  const state = () => `${memoryText(rssSplit(server.pid))}, ${threads()} threads`;
  const lines: Line[] = [{ endpoint: "after the sections above", note: state() }];
  await new Promise((resolve) => setTimeout(resolve, 65_000));
  lines.push({ endpoint: "65 s later, no requests", note: state() });
  table("The server's memory when idle (the caches keep up to 48 MB by default)", lines);
  results.idle = lines;
}

// --- done ---------------------------------------------------------------------------------------

await server.stop();
await hello.stop();
if (!flags.keep) Deno.removeSync(dir, { recursive: true });

if (flags.json) Deno.writeTextFileSync(flags.json, JSON.stringify(results, null, 2));
