/**
 * The fuzzer of tests/security/fuzz.ts at scale: 100,000 requests by default against a real
 * server process, printing status counts, failures, throughput and the server's RSS as it goes.
 *
 *     deno run -A bench/fuzz.ts [--count 100000] [--seed 1] [--concurrency 8]
 *         [--server-arg ARG]… [--deno-flag FLAG]… [--bare]
 *
 * The server runs as shipped, with Vitrine's V8 flags (src/util/v8_flags.ts). `--server-arg`
 * adds an argument to `vitrine serve` (`--server-arg=-s --server-arg=num_sql_threads
 * --server-arg=1`); `--deno-flag` replaces those flags (`--deno-flag=--v8-flags=--optimize-for-size`)
 * and `--bare` drops them: the plain `deno run -A cli.ts`, which restarts itself with them
 * (src/cli/v8_restart.ts), so it measures that restart.
 *
 * Prints figures; never fails a test run (the CI-sized run is tests/security/fuzz_test.ts).
 */
import { parseArgs } from "node:util";
import { runFuzz } from "../tests/security/fuzz.ts";
import { startFuzzTarget } from "../tests/security/fuzz_target.ts";
import { rssMiB } from "../tests/security/server_process.ts";

/** `RssAnon` of process `pid` in MiB (0 once it is gone). */
function anonMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Math.round(Number(/RssAnon:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}
import { V8_FLAGS_OPTION } from "../src/util/v8_flags.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    count: { type: "string", default: "100000" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "8" },
    "server-arg": { type: "string", multiple: true, default: [] },
    "deno-flag": { type: "string", multiple: true, default: [] },
    bare: { type: "boolean", default: false },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);

const started = performance.now();
const denoFlags = values.bare
  ? []
  : values["deno-flag"].length
  ? values["deno-flag"]
  : [V8_FLAGS_OPTION];
const target = await startFuzzTarget(values["server-arg"], denoFlags);
const source = new URL("..", import.meta.url).pathname;
try {
  const startRss = rssMiB(target.server.pid);
  console.log(
    `fuzzing ${target.server.url} with ${count} requests (seed ${seed}, ` +
      `${concurrency} at a time); server RSS at start ${startRss} MiB` +
      (values["server-arg"].length ? `; serve ${values["server-arg"].join(" ")}` : "") +
      `; deno run ${denoFlags.join(" ") || "without V8 flags"}`,
  );
  // What the process holds for itself (anonymous memory), beside the RSS that also counts the
  // file pages the kernel shares and reclaims (issue 42).
  let maxAnon = anonMiB(target.server.pid);
  const anonSampler = setInterval(() => {
    maxAnon = Math.max(maxAnon, anonMiB(target.server.pid));
  }, 250);
  console.log("requests | req/s | RSS MiB | max RSS | failures | statuses");
  const report = await runFuzz({
    url: target.server.url,
    seed,
    count,
    concurrency,
    pid: target.server.pid,
    secrets: [source.replace(/\/$/, ""), target.dir],
    pathsAllowedToShowFiles: /^\/-\/databases/,
    progressEvery: Math.max(1000, Math.floor(count / 20)),
    onProgress: (done, report) => {
      const rate = Math.round(done / ((performance.now() - started) / 1000));
      console.log(
        `${String(done).padStart(8)} | ${String(rate).padStart(5)} | ` +
          `${String(report.finalRssMiB).padStart(7)} | ${String(report.maxRssMiB).padStart(7)} | ` +
          `${String(report.failures.length).padStart(8)} | ${JSON.stringify(report.byStatus)}`,
      );
    },
  });
  const alive = await fetch(`${target.server.url}-/versions.json`).then((r) => r.status, () => 0);
  console.log("\nsummary");
  console.log(`  requests        ${report.requests}`);
  console.log(
    `  duration        ${(report.durationMs / 1000).toFixed(1)} s ` +
      `(${Math.round(report.requests / (report.durationMs / 1000))} req/s)`,
  );
  console.log(`  statuses        ${JSON.stringify(report.byStatus)}`);
  console.log(`  failures        ${report.failures.length}`);
  for (const failure of report.failures.slice(0, 20)) console.log(`    ${failure}`);
  console.log(
    `  server RSS      start ${startRss} MiB, max ${report.maxRssMiB} MiB, ` +
      `end ${report.finalRssMiB} MiB`,
  );
  clearInterval(anonSampler);
  console.log(
    `  server RssAnon  max ${maxAnon} MiB, end ${anonMiB(target.server.pid)} MiB`,
  );
  console.log(`  alive after     ${alive === 200 ? "yes" : `no (${alive})`}`);
} finally {
  await target.close();
}
