/**
 * Inserted rows per second through the JSON write API, `{"rows": [...]}` batches of 100 (or as
 * many as the second argument says: 1 shows what every request pays, whatever its rows), against
 * a floor measured in the same run: the same rows through the SQLite binding alone (one prepared
 * INSERT, one transaction per 100 rows). Prints one line per path and its ratio to the floor.
 *
 * The files live on /dev/shm when there is one: a commit's fsync on a shared disk costs 10–30 ms
 * and varies more than everything else together, which would hide what the API itself costs.
 * Each path runs three rounds, interleaved with the others; the best round counts. The in-process
 * path runs with the history of writes recorded in the internal database (the default), in the
 * file, and off, which shows what recording costs. Beside the rate, each path's CPU time on the
 * main thread (where every write runs) per row, its best round: on a shared machine it varies
 * far less than the rate, and the history's ratios are given against history off by both.
 * Run: `deno run -A bench/write_api.ts [batches] [rows a request]`.
 */

import { Connection } from "../src/sqlite/connection.ts";
import { Service } from "../src/service.ts";
import { serve } from "../src/app/server.ts";
import { threadCpuMs } from "../src/util/thread_clock.ts";

const BATCHES = Number(Deno.args[0] ?? 200);
const BATCH = Number(Deno.args[1] ?? 100);
const SCHEMA = "create table events (id integer primary key, name text, score real, n integer)";

const ROUNDS = 3;
const shm = (() => {
  try {
    return Deno.statSync("/dev/shm").isDirectory ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
})();
const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-write-", dir: shm });
let fileNumber = 0;
function freshDb(): string {
  const path = `${dir}/bench${fileNumber++}.db`;
  const conn = Connection.open(path);
  conn.exec(SCHEMA);
  conn.close();
  return path;
}

/** Batch `b` of rows: ids left to SQLite, like most API clients do. */
function batch(b: number): { name: string; score: number; n: number }[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    name: `event ${b}-${i}`,
    score: (b * BATCH + i) * 0.25,
    n: b * BATCH + i,
  }));
}
const bodies = Array.from({ length: BATCHES }, (_, b) => JSON.stringify({ rows: batch(b) }));

/** A round's rate, and the main thread's CPU time per row in µs. */
interface Round {
  rate: number;
  cpu: number;
}

let cpuStart = 0;
function rowsPerSecond(ms: number): Round {
  return {
    rate: (BATCHES * BATCH) / (ms / 1000),
    cpu: (threadCpuMs() - cpuStart) * 1000 / (BATCHES * BATCH),
  };
}

function bindingAlone(): Round {
  const conn = Connection.open(freshDb());
  const insert = conn.prepare("insert into events (name, score, n) values (?, ?, ?)");
  cpuStart = threadCpuMs();
  const start = performance.now();
  for (let b = 0; b < BATCHES; b++) {
    // The API parses each request body; so does the floor, to compare like with like.
    const rows = JSON.parse(bodies[b]).rows as { name: string; score: number; n: number }[];
    conn.exec("BEGIN");
    for (const row of rows) {
      insert.bind([row.name, row.score, row.n]);
      while (insert.step()) { /* no rows */ }
    }
    conn.exec("COMMIT");
  }
  const result = rowsPerSecond(performance.now() - start);
  insert.finalize();
  conn.close();
  return result;
}

/** `history`: where the database's writes are recorded (docs/history.md); the default, internal. */
function writerService(history?: string): Service {
  return new Service({
    files: [freshDb()],
    secret: "bench",
    metadata: {
      databases: { [`bench${fileNumber - 1}`]: { permissions: { "insert-row": true }, history } },
    },
  });
}

async function inProcess(history?: string): Promise<Round> {
  const svc = writerService(history);
  const db = [...svc.databases.keys()][0];
  const headers = { "content-type": "application/json" };
  await svc.client.post(`/${db}/events/-/insert`, { body: bodies[0], headers }); // warm up
  cpuStart = threadCpuMs();
  const start = performance.now();
  for (let b = 0; b < BATCHES; b++) {
    const response = await svc.client.post(`/${db}/events/-/insert`, { body: bodies[b], headers });
    if (response.status !== 201) throw new Error(response.text);
  }
  const result = rowsPerSecond(performance.now() - start);
  await svc.close();
  return result;
}

async function overHttp(concurrency: number): Promise<Round> {
  const svc = writerService();
  const db = [...svc.databases.keys()][0];
  const controller = new AbortController();
  let base = "";
  const server = await serve(svc, {
    port: 0,
    signal: controller.signal,
    onListen: (url) => (base = url),
  });
  const token = svc.create_token("bench");
  const send = async (body: string) => {
    const response = await fetch(`${base}/${db}/events/-/insert`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    });
    if (response.status !== 201) throw new Error(await response.text());
    await response.arrayBuffer();
  };
  await send(bodies[0]); // warm up
  let next = 0;
  cpuStart = threadCpuMs();
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < BATCHES) await send(bodies[next++]);
  }));
  // The client's fetch runs on this thread too: its CPU counts here.
  const result = rowsPerSecond(performance.now() - start);
  controller.abort();
  await server.finished;
  await svc.close();
  return result;
}

const paths: [string, () => Round | Promise<Round>][] = [
  ["binding alone (floor)", bindingAlone],
  ["svc.client, in-process", () => inProcess()],
  // What recording the history costs: the same without it, and with it in the file itself.
  ["svc.client, history off", () => inProcess("off")],
  ["svc.client, history in file", () => inProcess("database")],
  ["HTTP, 1 client", () => overHttp(1)],
  ["HTTP, 4 clients", () => overHttp(4)],
];
const OFF = "svc.client, history off";
const HISTORY_ON = new Set(["svc.client, in-process", "svc.client, history in file"]);
const best = new Map<string, Round>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, run] of paths) {
    const result = await run();
    const kept = best.get(label) ?? { rate: 0, cpu: Infinity };
    best.set(label, {
      rate: Math.max(kept.rate, result.rate),
      cpu: Math.min(kept.cpu, result.cpu),
    });
  }
}
const floor = best.get(paths[0][0])!;
const off = best.get(OFF)!;
console.log(
  `${BATCHES} batches of ${BATCH} rows, {"rows": [...]} per request, files on ${
    shm ?? "the temp dir"
  }, best of ${ROUNDS}; CPU: the main thread's, per row`,
);
for (const [label] of paths) {
  const { rate, cpu } = best.get(label)!;
  const history = HISTORY_ON.has(label)
    ? `  of history off: ${(rate / off.rate).toFixed(2)}x rate, ${(off.cpu / cpu).toFixed(2)}x CPU`
    : "";
  console.log(
    `${label.padEnd(28)} ${Math.round(rate).toLocaleString("en").padStart(10)} rows/s  ${
      (rate / floor.rate).toFixed(2)
    }x floor  ${cpu.toFixed(2).padStart(6)} µs CPU/row  ${(floor.cpu / cpu).toFixed(2)}x${history}`,
  );
}
Deno.removeSync(dir, { recursive: true });
