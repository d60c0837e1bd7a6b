/**
 * What V8 flags cost and save: the same `vitrine serve` process started with each set of
 * `--v8-flags`, driven by wrk (a varied mix of table, row, search, facet and SQL requests), in
 * alternating rounds so that the machine's noise falls on every set alike. Prints requests per
 * second, the server's CPU per request and its peak RSS, and each set's ratios to the first.
 *
 *   deno run -A bench/runtime_flags.ts [--rows=100000] [--seconds=10] [--rounds=2]
 *       [--sets="none;--optimize-for-size;--max-semi-space-size=1"] [--fast]
 *
 * `--fast` drives row pages and a small table's JSON instead of the mix: little SQL, mostly
 * JavaScript, where the flags' cost shows most.
 *
 * Prints figures; never fails a test run.
 */

import { buildBenchDatabase } from "./bench_db.ts";
import { wrk } from "./lib/wrk.ts";
import { cpuMs, machine, rssBytes, rssSampler } from "./lib/proc.ts";
import { fastScript, mixScript } from "./lib/mix.ts";
import { freePort } from "./lib/process.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const at = a.indexOf("=");
    return at < 0 ? [a.slice(2), "1"] : [a.slice(2, at), a.slice(at + 1)];
  }),
);
const ROWS = Number(flags.rows ?? 100_000);
const SECONDS = Number(flags.seconds ?? 10);
const ROUNDS = Number(flags.rounds ?? 2);
const SETS = (flags.sets ?? "none;--optimize-for-size;--max-semi-space-size=1").split(";");
const root = new URL("..", import.meta.url).pathname;

const dir = Deno.makeTempDirSync({ prefix: "vitrine-flags-" });
const db = `${dir}/bench.db`;
buildBenchDatabase(db, ROWS);
const script = `${dir}/mix.lua`;
Deno.writeTextFileSync(script, (flags.fast ? fastScript : mixScript)("bench", ROWS));

interface Figures {
  rps: number;
  cpuUs: number;
  startMiB: number;
  peakMiB: number;
}

async function measure(set: string): Promise<Figures> {
  const port = freePort();
  const v8 = set === "none" ? [] : [`--v8-flags=${set}`];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...v8,
      "bench/lib/vitrine_server.ts",
      "serve",
      "-i",
      db,
      "--port",
      `${port}`,
    ],
    cwd: root,
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 300; i++) {
      try {
        await (await fetch(`${base}/`)).body?.cancel();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const startMiB = rssBytes(child.pid) / 2 ** 20;
    await wrk(`${base}/`, { seconds: 2, script }); // warm up: JIT, caches, workers
    const sampler = rssSampler(child.pid);
    const before = cpuMs(child.pid);
    const result = await wrk(`${base}/`, { seconds: SECONDS, script });
    const cpuUs = ((cpuMs(child.pid) - before) * 1000) / Math.max(1, result.requests);
    return { rps: result.rps, cpuUs, startMiB, peakMiB: sampler.stop() / 2 ** 20 };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

console.log(`# V8 flags: cost and memory\n\n${machine()}`);
console.log(
  `${ROWS} rows; wrk ${
    flags.fast ? "fast requests" : "mix"
  }, 16 connections, ${SECONDS} s per run, ${ROUNDS} rounds\n`,
);
const results = new Map<string, Figures[]>(SETS.map((s) => [s, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const set of round % 2 ? [...SETS].reverse() : SETS) {
    const figures = await measure(set);
    results.get(set)!.push(figures);
    console.log(
      `  round ${round + 1} ${set}: ${figures.rps.toFixed(0)} req/s, ` +
        `${figures.cpuUs.toFixed(0)} µs/req, peak ${figures.peakMiB.toFixed(0)} MiB`,
    );
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const first = results.get(SETS[0])!;
console.log(
  "| v8 flags | req/s | CPU µs/req | RSS start MiB | RSS peak MiB | req/s ratio | peak ratio |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [set, runs] of results) {
  const rps = mean(runs.map((r) => r.rps));
  const peak = Math.max(...runs.map((r) => r.peakMiB));
  console.log(
    `| ${set} | ${rps.toFixed(0)} | ${mean(runs.map((r) => r.cpuUs)).toFixed(0)} | ` +
      `${mean(runs.map((r) => r.startMiB)).toFixed(0)} | ${peak.toFixed(0)} | ` +
      `${(rps / mean(first.map((r) => r.rps))).toFixed(2)} | ` +
      `${(peak / Math.max(...first.map((r) => r.peakMiB))).toFixed(2)} |`,
  );
}
Deno.removeSync(dir, { recursive: true });
