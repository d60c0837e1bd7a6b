/**
 * The floors `bench/load.ts` measures beside Vitrine in the same run: the same SQL through the
 * binding alone, a command's whole run (`sqlite3 -csv`), a Deno hello-world's memory, the same
 * bytes compressed in this process — and the bytes a response puts on the wire.
 *
 * @module
 */

import { Connection } from "../../src/sqlite/mod.ts";
import type { BindParams } from "../../src/sqlite/values.ts";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";
import { type Coding, compressSync } from "../../src/app/compression.ts";
import { rssSplit } from "./proc.ts";
import { freePort, soloDenoPath, startServer } from "./process.ts";

export /** Median wall and CPU time of running `statements` once, through our binding, alone. */
function sqlFloor(path: string, statements: [string, BindParams | null][], runs = 15) {
  const conn = Connection.open(path, { mode: "ro" });
  const times: number[] = [];
  try {
    for (let i = 0; i < runs + 2; i++) {
      const t0 = performance.now();
      for (const [sql, params] of statements) conn.query(sql, params ?? undefined);
      if (i >= 2) times.push(performance.now() - t0);
    }
  } finally {
    conn.close();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Runs of `sql` per second through the binding on one thread per core at once, for about
 * `seconds` (`floor_worker.ts`): the floor under whatever else the machine runs at that moment.
 */
export async function parallelFloorRps(path: string, sql: string, seconds: number) {
  const cores = navigator.hardwareConcurrency;
  const once = sqlFloor(path, [[sql, null]], 3);
  const runs = Math.max(5, Math.round((seconds * 1000) / once));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: cores }, () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL("./floor_worker.ts", import.meta.url), { type: "module" });
      worker.onmessage = () => (worker.terminate(), resolve());
      worker.onerror = (event) => (worker.terminate(), reject(new Error(event.message)));
      worker.postMessage({ path, requests: Array.from({ length: runs }, () => [[sql, null]]) });
    })));
  return (cores * runs) / ((performance.now() - t0) / 1000);
}

/** Milliseconds a command takes from start to exit, its output discarded. */
export async function timeCommand(cmd: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, { args, stdout: "null" }).output();
  if (!out.success) throw new Error(`${cmd} failed`);
  return performance.now() - t0;
}

export /** Resident memory of a Deno hello-world run as Vitrine runs, with one idle worker thread. */
async function helloMemory() {
  const port = freePort();
  const floor = await startServer(
    [
      soloDenoPath("floor"),
      "run",
      "-A",
      V8_FLAGS_OPTION,
      "bench/hello_server.ts",
      String(port),
      "--worker",
    ],
    port,
  );
  for (let i = 0; i < 1000; i++) await (await fetch(`${floor.base}/row`)).arrayBuffer();
  const memory = rssSplit(floor.pid);
  await floor.stop();
  return memory;
}

export /** Microseconds to compress `body` once, as the server does (median of 5 rounds of 100). */
function compressAlone(coding: Coding, body: Uint8Array): number {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) compressSync(coding, body);
    rounds.push((performance.now() - started) * 10);
  }
  return rounds.sort((a, b) => a - b)[2];
}

export /** Bytes on the wire (before decoding) for `url` with this Accept-Encoding, via curl. */
async function rawLength(url: string, encoding: string): Promise<number> {
  const out = await new Deno.Command("curl", {
    args: [
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{size_download}",
      "-H",
      `Accept-Encoding: ${encoding}`,
      url,
    ],
    stdout: "piped",
  }).output();
  return Number(new TextDecoder().decode(out.stdout));
}
