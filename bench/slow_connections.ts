/**
 * Slow and idle connections: 1,000 connections held open against a real server process — a third
 * never send a byte, a third send their request headers one byte a second (slowloris), a third
 * send complete headers and then their body one byte a second — while normal requests keep
 * coming. Prints the latency of those requests before and during the siege, how the server dealt
 * with each kind of connection (slow bodies are cut with a 408 after `body_time_limit_ms`, here
 * 10 s; Deno has no way to time out the others), and whether the server still answers afterwards.
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

const BODY_LIMIT_MS = 10_000;
const target = await startFuzzTarget(["-s", "body_time_limit_ms", String(BODY_LIMIT_MS)]);
const url = new URL(target.server.url);
const encoder = new TextEncoder();

/** One held connection: what it trickles, and what became of it. */
interface Slow {
  kind: "idle" | "slow headers" | "slow body";
  conn: Deno.Conn;
  /** Bytes it trickles, one a second (after `head`, sent at once). */
  trickle: Uint8Array;
  sent: number;
  /** What the server did: answered (status), closed, or nothing yet. */
  outcome: string | null;
}

const body = encoder.encode("message=" + "x".repeat(500));
const kinds: { kind: Slow["kind"]; head: Uint8Array; trickle: Uint8Array }[] = [
  { kind: "idle", head: new Uint8Array(), trickle: new Uint8Array() },
  {
    kind: "slow headers",
    head: new Uint8Array(),
    trickle: encoder.encode(
      "GET /shop/products.json HTTP/1.1\r\nHost: x\r\nX-Padding: " + "p".repeat(400) +
        "\r\n\r\n",
    ),
  },
  {
    kind: "slow body",
    head: encoder.encode(
      "POST /shop/add_log_entry HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n" +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
    ),
    trickle: body,
  },
];

const slow: Slow[] = [];
try {
  await normalTraffic(target.server.url, 1000); // warm up
  console.log(`${"".padEnd(34)} | reqs  |  p50 ms |  p95 ms |  p99 ms |  max ms`);
  row("normal requests alone", await normalTraffic(target.server.url, SECONDS * 250));
  const rssBefore = rssMiB(target.server.pid);

  let refused = 0;
  for (let i = 0; i < CONNECTIONS; i++) {
    const { kind, head, trickle } = kinds[i % kinds.length];
    try {
      const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
      if (head.length) await conn.write(head);
      const held: Slow = { kind, conn, trickle, sent: 0, outcome: null };
      slow.push(held);
      // Whatever the server sends back (a 408) or its closing the connection.
      (async () => {
        const buffer = new Uint8Array(4096);
        const n = await conn.read(buffer).catch(() => null);
        held.outcome = n === null
          ? "closed"
          : (/^HTTP\/1\.1 (\d+)/.exec(new TextDecoder().decode(buffer.subarray(0, n)))?.[1] ??
            "answered");
      })();
    } catch {
      refused++;
    }
  }
  const trickle = setInterval(() => {
    for (const held of slow) {
      if (held.outcome !== null || held.sent >= held.trickle.length) continue;
      held.conn.write(held.trickle.subarray(held.sent, ++held.sent)).catch(() => {});
    }
  }, 1000);
  const during = await normalTraffic(target.server.url, SECONDS * 1000);
  clearInterval(trickle);
  row(`during ${slow.length} idle/slow connections`, during);
  console.log(
    `\nconnections opened ${slow.length}, refused ${refused}; ` +
      `slow body limit (body_time_limit_ms) ${BODY_LIMIT_MS} ms, siege ${SECONDS} s`,
  );
  for (const { kind } of kinds) {
    const mine = slow.filter((held) => held.kind === kind);
    const outcomes: Record<string, number> = {};
    for (const held of mine) {
      const key = held.outcome ?? "still open";
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    console.log(
      `  ${kind.padEnd(12)} ${mine.length} connections, ${mine[0]?.sent ?? 0} bytes sent ` +
        `by the first: ${JSON.stringify(outcomes)}`,
    );
  }
  const fds = [...Deno.readDirSync(`/proc/${target.server.pid}/fd`)].length;
  console.log(
    `server RSS before the siege ${rssBefore} MiB, during ${rssMiB(target.server.pid)} MiB; ` +
      `open file descriptors ${fds}`,
  );
} finally {
  for (const held of slow) {
    try {
      held.conn.close();
    } catch { /* already closed */ }
  }
  const alive = await fetch(`${target.server.url}-/versions.json`).then((r) => r.status, () => 0);
  console.log(`server answers afterwards: ${alive === 200 ? "yes" : `no (${alive})`}`);
  await target.close();
}
