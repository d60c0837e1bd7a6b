/**
 * Slow and idle connections: 1,000 connections held open against a real server process — half
 * never send a byte, half send their request one byte a second (slowloris) — while normal
 * requests keep coming. Prints the latency of those requests before and during the siege, and
 * whether the server still answers afterwards.
 *
 *     deno run -A bench/slow_connections.ts [--connections 1000] [--seconds 20]
 *
 * Prints figures; never fails a test run.
 */
import { parseArgs } from "node:util";
import { startFuzzTarget } from "../tests/security/fuzz_target.ts";
import { rssMiB } from "../tests/security/server_process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    connections: { type: "string", default: "1000" },
    seconds: { type: "string", default: "20" },
  },
});
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Sends normal requests one after another for `ms`; their latencies, sorted. */
async function normalTraffic(base: string, ms: number): Promise<number[]> {
  const paths = [
    "shop/products.json",
    "shop/products",
    "shop.json?sql=select+count(*)+from+products",
    "-/versions.json",
  ];
  const latencies: number[] = [];
  const end = performance.now() + ms;
  for (let i = 0; performance.now() < end; i++) {
    const start = performance.now();
    const response = await fetch(base + paths[i % paths.length]);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    latencies.push(performance.now() - start);
  }
  return latencies.sort((a, b) => a - b);
}

function row(label: string, latencies: number[]): void {
  const f = (n: number) => n.toFixed(1).padStart(7);
  console.log(
    `${label.padEnd(34)} | ${String(latencies.length).padStart(5)} | ${
      f(percentile(latencies, 0.5))
    } | ` +
      `${f(percentile(latencies, 0.95))} | ${f(percentile(latencies, 0.99))} | ${
        f(latencies.at(-1)!)
      }`,
  );
}

const target = await startFuzzTarget();
const url = new URL(target.server.url);
const sockets: Deno.Conn[] = [];
try {
  await normalTraffic(target.server.url, 1000); // warm up
  console.log(`${"".padEnd(34)} | reqs  |  p50 ms |  p95 ms |  p99 ms |  max ms`);
  row("normal requests alone", await normalTraffic(target.server.url, SECONDS * 250));
  const rssBefore = rssMiB(target.server.pid);

  let opened = 0;
  let refused = 0;
  for (let i = 0; i < CONNECTIONS; i++) {
    try {
      sockets.push(await Deno.connect({ hostname: url.hostname, port: Number(url.port) }));
      opened++;
    } catch {
      refused++;
    }
  }
  // Half the connections trickle a request in, one byte a second; the others stay silent.
  const request = new TextEncoder().encode(
    "GET /shop/products.json HTTP/1.1\r\nHost: x\r\nX-Padding: " + "p".repeat(400) + "\r\n\r\n",
  );
  let sent = 0;
  let closedByServer = 0;
  const trickle = setInterval(() => {
    for (let i = 0; i < sockets.length; i += 2) {
      sockets[i].write(request.subarray(sent, sent + 1)).catch(() => closedByServer++);
    }
    sent++;
  }, 1000);
  const during = await normalTraffic(target.server.url, SECONDS * 1000);
  clearInterval(trickle);
  row(`during ${opened} idle/slow connections`, during);
  console.log(
    `\nconnections opened ${opened}, refused ${refused}; slow ones sent ${sent} bytes each; ` +
      `writes failing (closed by the server) ${closedByServer}`,
  );
  console.log(
    `server RSS before the siege ${rssBefore} MiB, during ${rssMiB(target.server.pid)} MiB`,
  );
} finally {
  for (const socket of sockets) {
    try {
      socket.close();
    } catch { /* already closed */ }
  }
  const alive = await fetch(`${target.server.url}-/versions.json`).then((r) => r.status, () => 0);
  console.log(`server answers afterwards: ${alive === 200 ? "yes" : `no (${alive})`}`);
  await target.close();
}
