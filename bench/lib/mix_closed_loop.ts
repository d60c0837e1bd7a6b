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
 * - one thread per core as above, but URLs whose statements are light (under `lightMs` in the
 *   replay) go before the others, as Vitrine serves them (its short lane first, its tiny queries
 *   on the main thread): what that order costs the heavy pages in a closed loop, where every
 *   client answered at once asks its next URL at once and the clients gather on the heavy ones.
 *
 * The same servers also take the URLs at one steady rate (`openLoopReplay`): the order that is
 * best for visitors arriving on their own.
 *
 * Whatever the floor's latency is here, no server of these cores can answer these URLs faster under
 * the same sixteen clients and the same order.
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
 * in a closed loop, served by `threads` workers in the order asked; URLs `light` marks go before
 * the others when given.
 */
export function closedLoopReplay(
  path: string,
  requests: Statement[][],
  threads: number,
  clients = 16,
  light: readonly boolean[] | null = null,
): Promise<ClosedLoop> {
  return replay(path, requests, threads, { clients }, light);
}

/**
 * Replays the first `seconds` × `rate` of `requests` asked at one steady rate (an open loop, as
 * visitors arriving on their own: each URL is asked when due whatever is still unanswered), served
 * by `threads` workers in the order asked, `light` URLs first when given. A URL's latency runs
 * from when it was due.
 */
export function openLoopReplay(
  path: string,
  requests: Statement[][],
  threads: number,
  rate: number,
  seconds: number,
  light: readonly boolean[] | null = null,
): Promise<ClosedLoop> {
  const count = Math.min(requests.length, Math.floor(rate * seconds));
  return replay(path, requests.slice(0, count), threads, { rate }, light);
}

async function replay(
  path: string,
  requests: Statement[][],
  threads: number,
  load: { clients: number } | { rate: number },
  light: readonly boolean[] | null,
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
          const first = light ? queue.findIndex((id) => light[id]) : -1;
          const id = queue.splice(Math.max(0, first), 1)[0];
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
          // In a closed loop, the client whose answer this was asks its next URL at once.
          if ("clients" in load) ask();
          dispatch();
          if (++done === requests.length) resolve();
        };
        worker.onerror = (event) => reject(new Error(event.message));
      }
      if ("clients" in load) {
        for (let i = 0; i < load.clients; i++) ask();
        dispatch();
      } else {
        const interval = 1000 / load.rate;
        const due = () => t0 + next * interval;
        const tick = () => {
          while (next < requests.length && due() <= performance.now()) {
            ask();
            asked[next - 1] = due() - interval; // from when it was due, not when the timer fired
          }
          dispatch();
          if (next < requests.length) setTimeout(tick, Math.max(0, due() - performance.now()));
        };
        tick();
      }
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
