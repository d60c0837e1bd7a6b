/**
 * Inserted rows per second through the JSON write API, `{"rows": [...]}` batches of 100, against
 * a floor measured in the same run: the same rows through the SQLite binding alone (one prepared
 * INSERT, one transaction per 100 rows). Prints one line per path and its ratio to the floor.
 *
 * The files live on /dev/shm when there is one: a commit's fsync on a shared disk costs 10–30 ms
 * and varies more than everything else together, which would hide what the API itself costs.
 * Each path runs three rounds, interleaved with the others; the best round counts. The in-process
 * path runs with the history of writes recorded in the internal database (the default), in the
 * file, and off, which shows what recording costs.
 * Run: `deno run -A bench/write_api.ts [batches]`.
 */

import { Connection } from "../src/sqlite/connection.ts";
import { Service } from "../src/service.ts";
import { serve } from "../src/app/server.ts";

const BATCHES = Number(Deno.args[0] ?? 200);
const BATCH = 100;
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

function rowsPerSecond(ms: number): number {
  return (BATCHES * BATCH) / (ms / 1000);
}

function bindingAlone(): number {
  const conn = Connection.open(freshDb());
  const insert = conn.prepare("insert into events (name, score, n) values (?, ?, ?)");
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
  const ms = performance.now() - start;
  insert.finalize();
  conn.close();
  return rowsPerSecond(ms);
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

async function inProcess(history?: string): Promise<number> {
  const svc = writerService(history);
  const db = [...svc.databases.keys()][0];
  const headers = { "content-type": "application/json" };
  await svc.client.post(`/${db}/events/-/insert`, { body: bodies[0], headers }); // warm up
  const start = performance.now();
  for (let b = 0; b < BATCHES; b++) {
    const response = await svc.client.post(`/${db}/events/-/insert`, { body: bodies[b], headers });
    if (response.status !== 201) throw new Error(response.text);
  }
  const ms = performance.now() - start;
  await svc.close();
  return rowsPerSecond(ms);
}

async function overHttp(concurrency: number): Promise<number> {
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
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < BATCHES) await send(bodies[next++]);
  }));
  const ms = performance.now() - start;
  controller.abort();
  await server.finished;
  await svc.close();
  return rowsPerSecond(ms);
}

const paths: [string, () => number | Promise<number>][] = [
  ["binding alone (floor)", bindingAlone],
  ["svc.client, in-process", () => inProcess()],
  // What recording the history costs: the same without it, and with it in the file itself.
  ["svc.client, history off", () => inProcess("off")],
  ["svc.client, history in file", () => inProcess("database")],
  ["HTTP, 1 client", () => overHttp(1)],
  ["HTTP, 4 clients", () => overHttp(4)],
];
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, run] of paths) best.set(label, Math.max(best.get(label) ?? 0, await run()));
}
const floor = best.get(paths[0][0])!;
console.log(
  `${BATCHES} batches of ${BATCH} rows, {"rows": [...]} per request, files on ${
    shm ?? "the temp dir"
  }, best of ${ROUNDS}`,
);
for (const [label] of paths) {
  const rate = best.get(label)!;
  const ratio = (rate / floor).toFixed(2);
  console.log(
    `${label.padEnd(26)} ${
      Math.round(rate).toLocaleString("en").padStart(10)
    } rows/s  ${ratio}x floor`,
  );
}
Deno.removeSync(dir, { recursive: true });
