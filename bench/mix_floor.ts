/**
 * The varied mix against its floor alone (issue 42 item 2), without the reference: the mix part of
 * `honest_load.ts` (`lib/mix_run.ts`), for working on it. Vitrine is started with the plain
 * command; the floor is the SQL it ran for the same URLs, replayed through the binding on one
 * connection per core. Target: Vitrine's rate ≥ 0.8x the floor's.
 *
 *   deno run -A bench/mix_floor.ts [--rows=500000] [--seconds=5] [--serve="-s num_sql_threads 2"]
 *
 * `--serve` adds options to both servers' command (the measured one and the recording one), to
 * compare settings.
 *
 * @module
 */

import { buildBenchDatabase } from "./bench_db.ts";
import { machine } from "./lib/proc.ts";
import { freePort, startServer } from "./lib/process.ts";
import { fmt, ms } from "./lib/report.ts";
import { floorText, printMixDetails, printMixLatencyFloor, runMix } from "./lib/mix_run.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const ROWS = Number(flags.rows ?? 500_000);
const SECONDS = Number(flags.seconds ?? 5);
const SERVE = (flags.serve ?? "").split(" ").filter(Boolean);

const dir = Deno.makeTempDirSync({ prefix: "vitrine-mix-floor-" });
const path = `${dir}/bench.db`;
buildBenchDatabase(path, ROWS);
console.log(`# The varied mix against its SQL floor (issue 42 item 2)\n\n${machine()}`);
if (SERVE.length) console.log(`\nServed with \`${SERVE.join(" ")}\`.`);

const port = freePort();
const server = await startServer(
  [Deno.execPath(), "run", "-A", "cli.ts", "serve", "-i", path, "-p", String(port)]
    .concat(["--no-access-log", ...SERVE]),
  port,
  "/-/versions.json",
);
let run;
try {
  run = await runMix({
    path,
    rows: ROWS,
    seconds: SECONDS,
    vitrine: server,
    reference: null,
    serveArgs: SERVE,
  });
} finally {
  await server.stop();
}
const ratio = run.vitrine.rps / run.floorRps;
console.log(`\n| | req/s | p50 | p99 | failed | ratio to the floor | target | met |`);
console.log("|---|---:|---:|---:|---:|---:|---|:-:|");
console.log(`| floor: ${floorText(run)} | ${fmt(run.floorRps)} | | | | | | |`);
console.log(
  `| Vitrine, wrk 1 thread 16 connections | ${fmt(run.vitrine.rps)} | ${ms(run.vitrine.p50)} | ${
    ms(run.vitrine.p99)
  } | ${fmt(run.vitrine.errors)} | ${fmt(ratio, 2)}x | ≥ 0.8x | ${
    ratio >= 0.8 ? "yes" : "**no**"
  } |`,
);
printMixLatencyFloor(run);
printMixDetails(run);
console.log(`\n${machine()}`);
Deno.removeSync(dir, { recursive: true });
