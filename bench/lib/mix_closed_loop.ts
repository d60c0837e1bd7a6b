/**
 * The mix's floor under wrk's own load (issue 42 item 2): the recorded SQL replayed by sixteen
 * clients in a closed loop, as `wrk -c16` asks. Each client takes the next URL of the measured list,
 * asks for it, and takes another when its statements have run; a URL's latency runs from when its
 * client asked to when its statements finished. Two servers with zero overhead of their own:
 *
 * - one thread per core, each with its own connection, serving a shared queue in the order asked:
 *   an ideal server (what Vitrine's read pool aims at);
 * - one thread per client, the operating system sharing the cores among them (processor sharing).
 *
 * Whatever the floor's latency is here, no server of these cores can answer these URLs faster under
 * the same sixteen clients.
 *
 * @module
 */

import { percentile } from "./mix_client.ts";
import type { Statement } from "./mix_floor.ts";

/** What one closed-loop replay found. */
export interface ClosedLoop {
  /** Threads that ran the statements. */
  threads: number;
  /** URLs a second: the list over the replay's wall time. */
  rps: number;
  /** Latency of each URL in ms, in the list's order. */
  latencies: number[];
  p50: number;
  p99: number;
  max: number;
}

/**
 * Replays `requests` (per URL its statements, in the order asked) on `path` by `clients` clients
 * in a closed loop, served by `threads` workers in the order asked.
 */
export async function closedLoopReplay(
  path: string,
  requests: Statement[][],
  threads: number,
  clients = 16,
): Promise<ClosedLoop> {
  const workers = await Promise.all(
    Array.from({ length: threads }, () =>
      new Promise<Worker>((resolve, reject) => {
        const worker = new Worker(new URL("./floor_worker.ts", import.meta.url), {
          type: "module",
        });
        worker.onmessage = () => resolve(worker);
        worker.onerror = (event) => reject(new Error(event.message));
        worker.postMessage({ path, serve: true });
      })),
  );
  const latencies = new Array<number>(requests.length);
  const asked = new Array<number>(requests.length);
  /** URLs asked and not yet taken by a thread, in the order asked. */
  const queue: number[] = [];
  const idle = [...workers];
  let next = 0;
  let done = 0;
  const t0 = performance.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const dispatch = () => {
        while (idle.length && queue.length) {
          const id = queue.shift()!;
          idle.pop()!.postMessage({ id, statements: requests[id] });
        }
      };
      const ask = () => {
        if (next >= requests.length) return;
        asked[next] = performance.now();
        queue.push(next++);
      };
      for (const worker of workers) {
        worker.onmessage = ({ data }: MessageEvent<{ id: number }>) => {
          latencies[data.id] = performance.now() - asked[data.id];
          idle.push(worker);
          // The client whose answer this was asks its next URL at once.
          ask();
          dispatch();
          if (++done === requests.length) resolve();
        };
        worker.onerror = (event) => reject(new Error(event.message));
      }
      for (let i = 0; i < clients; i++) ask();
      dispatch();
      if (requests.length === 0) resolve();
    });
  } finally {
    for (const worker of workers) worker.terminate();
  }
  const wall = performance.now() - t0;
  return {
    threads,
    rps: requests.length / (wall / 1000),
    latencies,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies, 0),
  };
}
