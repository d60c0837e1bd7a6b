/**
 * Figures for docs/scaling.md: requests per second per core for the main endpoints (server CPU
 * time per request, the steadiest number on a shared machine), against the hello-world floor
 * measured in the same run; then one and two replicas behind HAProxy (round-robin), for reads
 * and for writes to one shared mutable file.
 *
 *   deno run -A bench/scale.ts [--rows=100000] [--seconds=5] [--connections=16]
 *
 * Needs `wrk` and (for the replica part) `haproxy`. Compare ratios, not absolute numbers.
 */

import { buildBenchDatabase } from "./bench_db.ts";
import { wrk } from "./lib/wrk.ts";
import { cpuMs, machine } from "./lib/proc.ts";
import { mixScript } from "./lib/mix.ts";
import { freePort, type ServerProcess, startServer } from "./lib/process.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
const ROWS = Number(flags.rows ?? 100_000);
const SECONDS = Number(flags.seconds ?? 5);
const CONNECTIONS = Number(flags.connections ?? 16);

const dir = Deno.makeTempDirSync({ prefix: "vitrine-scale-" });
const benchPath = `${dir}/bench.db`;
const mutPath = `${dir}/mut.db`;
buildBenchDatabase(benchPath, ROWS);
Deno.copyFileSync(benchPath, mutPath);
Deno.writeTextFileSync(
  `${dir}/metadata.json`,
  JSON.stringify({
    permissions: { "view-metrics": true },
    databases: { mut: { permissions: { "insert-row": true } } },
  }),
);
const insertScript = `${dir}/insert.lua`;
Deno.writeTextFileSync(
  insertScript,
  `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/mut/trees/-/insert", nil,
    '{"row": {"species": "Oak", "address": "' .. n .. ' Bench Road", "height": 3.5}}')
end
`,
);
const mixPath = `${dir}/mix.lua`;
Deno.writeTextFileSync(mixPath, mixScript("bench", ROWS));

console.log(`# Vitrine scale-out figures\n\n${machine()}`);
console.log(
  `${ROWS.toLocaleString("en")} rows; wrk 1 thread, ${CONNECTIONS} connections, ` +
    `${SECONDS} s per line\n`,
);

function vitrine(port: number): Promise<ServerProcess> {
  return startServer(
    [
      Deno.execPath(),
      "run",
      "-A",
      "bench/lib/vitrine_server.ts",
      "serve",
      "-i",
      benchPath,
      mutPath,
      "-m",
      `${dir}/metadata.json`,
      "--no-access-log",
      "--port",
      String(port),
    ],
    port,
    "/-/health",
  );
}

async function measure(url: string, pids: number[], options: Parameters<typeof wrk>[1] = {}) {
  for (let i = 0; i < 3 && !options.script; i++) await (await fetch(url)).arrayBuffer();
  const before = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const result = await wrk(url, { seconds: SECONDS, connections: CONNECTIONS, ...options });
  const cpuUs = ((pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - before) * 1000) /
    Math.max(1, result.requests);
  if (result.errors) console.log(`  ! ${url}: ${result.errors} errors of ${result.requests}`);
  return { ...result, cpuUs };
}

const pad = (text: string | number, width: number) => String(text).padStart(width);
function row(name: string, r: { rps: number; p50: number; p99: number; cpuUs: number }, floor?: {
  cpuUs: number;
}) {
  const perCore = 1e6 / Math.max(1, r.cpuUs);
  const ratio = floor ? `${(floor.cpuUs / r.cpuUs * 100).toFixed(1)}%` : "100%";
  console.log(
    `| ${name.padEnd(44)} | ${pad(r.rps.toFixed(0), 6)} | ${pad(r.p50.toFixed(2), 6)} | ` +
      `${pad(r.p99.toFixed(1), 6)} | ${pad(r.cpuUs.toFixed(0), 5)} | ${
        pad(perCore.toFixed(0), 6)
      } | ` +
      `${pad(ratio, 6)} |`,
  );
}

// --- one process: req/s per core ---------------------------------------------------------

const helloPort = freePort();
const hello = await startServer([
  Deno.execPath(),
  "run",
  "-A",
  "bench/hello_server.ts",
  String(helloPort),
], helloPort);
const server = await vitrine(freePort());
console.log("## One process\n");
console.log(
  "| endpoint                                     |  req/s | p50 ms | p99 ms | CPU µs | req/s/core | vs floor |",
);
console.log("|---|---|---|---|---|---|---|");
const floor = await measure(hello.base + "/", [hello.pid]);
row("hello-world Deno.serve (floor)", floor);
await hello.stop();
const lines: [string, string, Parameters<typeof wrk>[1]?][] = [
  ["/-/health", "/-/health"],
  ["row JSON (immutable)", "/bench/trees/12345.json"],
  ["table JSON, 100 rows (immutable, cached)", "/bench/trees.json?_size=100"],
  ["table JSON, 100 rows (mutable file)", "/mut/trees.json?_size=100"],
  ["table HTML, 100 rows (immutable)", "/bench/trees?_size=100"],
  ["varied mix (every request a new URL)", "/", { script: mixPath }],
  ["write API insert, 1 row (mutable file)", "/", { script: insertScript }],
  ["/-/metrics", "/-/metrics"],
];
for (const [name, path, options] of lines) {
  row(name, await measure(server.base + path, [server.pid], options), floor);
}
await server.stop();

// --- replicas behind HAProxy -------------------------------------------------------------

const haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});
if (!haproxy) {
  console.log("\n(no haproxy: replica figures skipped)");
} else {
  console.log("\n## Replicas behind HAProxy (round-robin), same machine\n");
  console.log("| replicas | workload | req/s | p50 ms | p99 ms |");
  console.log("|---|---|---|---|---|");
  const replicas = [await vitrine(freePort()), await vitrine(freePort())];
  for (const count of [1, 2]) {
    const port = freePort();
    const config = `${dir}/haproxy-${count}.cfg`;
    Deno.writeTextFileSync(
      config,
      `global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend web
  bind 127.0.0.1:${port}
  default_backend vitrine
backend vitrine
  balance roundrobin
  option httpchk GET /-/health
${replicas.slice(0, count).map((r, i) => `  server r${i + 1} 127.0.0.1:${r.port} check`).join("\n")}
`,
    );
    const balancer = await startServer([haproxy, "-db", "-f", config], port, "/-/health");
    for (
      const [name, path, options] of [
        ["table JSON, 100 rows", "/bench/trees.json?_size=100"],
        ["varied mix", "/", { script: mixPath }],
        ["write API insert (one shared file)", "/", { script: insertScript }],
      ] as [string, string, Parameters<typeof wrk>[1]?][]
    ) {
      const r = await wrk(balancer.base + path, {
        seconds: SECONDS,
        connections: CONNECTIONS,
        ...options,
      });
      if (r.errors) console.log(`  ! ${name}: ${r.errors} errors`);
      console.log(
        `| ${count} | ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(1)} |`,
      );
    }
    await balancer.stop();
  }
  for (const replica of replicas) await replica.stop();
}
Deno.removeSync(dir, { recursive: true });
