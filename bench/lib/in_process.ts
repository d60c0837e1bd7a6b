/**
 * The engine alone: requests handed to the service's fetch handler in this process, 16 at a time,
 * with no socket, no HTTP parsing and no load generator sharing the machine. Beside the wrk
 * figures it tells the cost of Vitrine's own work from that of the network stack and of wrk
 * itself (both run on the same two cores).
 *
 *   deno run -A bench/lib/in_process.ts --immutable=bench.db --path=/bench/trees/{id}.json \
 *     --ids=500000 --seconds=3
 *
 * Prints one JSON line: `{"rps": …, "cpu_us": …}` (CPU of all threads per request). `{id}` in the
 * path becomes a random row id, as in the wrk script.
 *
 * @module
 */

import { Service } from "../../src/service.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, ...value] = a.slice(2).split("=");
    return [key, value.join("=")];
  }),
);
const files = flags.mutable ? [flags.mutable] : [];
const immutables = flags.immutable ? [flags.immutable] : [];
// Every request builds its page: this measures the engine, not the page cache.
const svc = new Service({ files, immutables, settings: { page_cache_mb: 0 } });
const handler = svc.handler();
const ids = Number(flags.ids ?? 1);
const seconds = Number(flags.seconds ?? 3);
const concurrency = Number(flags.concurrency ?? 16);
let seed = 3;
/** A small deterministic generator: the same ids in every run. */
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const url = () =>
  `http://127.0.0.1${flags.path.replace("{id}", String(1 + Math.floor(random() * ids)))}`;

async function one(): Promise<void> {
  const target = url();
  const response = await handler(new Request(target));
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${response.status} for ${target}: ${body}`);
}

// Warm up (introspection, JIT, caches), then measure for `seconds`.
for (let i = 0; i < 500; i++) await one();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const stopAt = started + seconds * 1000;
let requests = 0;
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (performance.now() < stopAt) {
    await one();
    requests++;
  }
}));
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
console.log(JSON.stringify({
  rps: requests / elapsed,
  cpu_us: (cpu.user + cpu.system) / requests,
}));
await svc.close();
Deno.exit(0);
