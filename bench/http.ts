/**
 * End-to-end throughput: a real `Deno.serve` on 127.0.0.1 and concurrent fetch loops from the
 * same process, for a few page kinds. Prints requests per second and latency percentiles.
 *
 *   deno run -A bench/http.ts [seconds-per-url=3] [concurrency=16]
 *
 * Numbers depend on the machine (the client shares the CPU with the server); compare runs on the
 * same machine only.
 */
import { Service } from "../src/service.ts";
import { serve } from "../src/app/server.ts";
import { Connection } from "../src/sqlite/mod.ts";

const seconds = Number(Deno.args[0] ?? 3);
const concurrency = Number(Deno.args[1] ?? 16);

function buildDatabase(path: string): void {
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table items (id integer primary key, name text, score real, n integer);
    begin;`);
  const stmt = conn.prepare("insert into items values (?, ?, ?, ?)");
  for (let i = 1; i <= 500_000; i++) {
    stmt.bind([i, `item ${i}`, i / 7, i % 97]).step();
  }
  stmt.finalize();
  conn.exec("commit");
  conn.close();
}

async function hammer(url: string): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      latencies.push(performance.now() - start);
    }
  }));
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-" });
const path = `${dir}/bench.db`;
buildDatabase(path);
const svc = new Service({ immutables: [path] });
const controller = new AbortController();
let base = "";
await serve(svc, { port: 0, signal: controller.signal, onListen: (url) => (base = url) });

const urls = [
  "/-/versions.json",
  "/bench/items.json?_size=100",
  "/bench/items.json?_size=100&_next=250000",
  "/bench/items.json?n=5&_sort_desc=score",
  "/bench/items",
  "/bench/-/query.json?sql=select+count(*)+from+items+where+n+%3D+3",
];
console.log(
  `concurrency ${concurrency}, ${seconds}s per URL, num_sql_threads ${
    svc.setting("num_sql_threads")
  }`,
);
for (const url of urls) {
  const { rps, p50, p99 } = await hammer(base + url);
  console.log(
    `${url.padEnd(48)} ${rps.toFixed(0).padStart(6)} req/s  p50 ${p50.toFixed(2)} ms  p99 ${
      p99.toFixed(2)
    } ms`,
  );
}
controller.abort();
await svc.close();
Deno.removeSync(dir, { recursive: true });
