/**
 * A worker of `bench/mix_floor.ts` (and of `parallelFloorRps`, `floors.ts`): runs the SQL of its
 * share of the mix's requests through the binding, as fast as it can, and answers how long each
 * statement took, and the CPU time its thread spent running them (its boot and connection left
 * out).
 *
 * @module
 */

import { Connection } from "../../src/sqlite/mod.ts";
import type { BindParams } from "../../src/sqlite/values.ts";
import { threadCpuMs } from "../../src/util/thread_clock.ts";

interface Job {
  path: string;
  requests: [string, BindParams | null][][];
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Job>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = ({ data }) => {
  const conn = Connection.open(data.path, { mode: "ro" });
  const times = new Map<string, number>();
  /** Milliseconds each request's statements took, in the order of `data.requests`. */
  const perRequest: number[] = [];
  const t0 = performance.now();
  const cpu0 = threadCpuMs();
  for (const statements of data.requests) {
    const r0 = performance.now();
    for (const [sql, params] of statements) {
      const s0 = performance.now();
      conn.query(sql, params ?? undefined);
      times.set(sql, (times.get(sql) ?? 0) + performance.now() - s0);
    }
    perRequest.push(performance.now() - r0);
  }
  const ms = performance.now() - t0;
  const cpuMs = threadCpuMs() - cpu0;
  conn.close();
  scope.postMessage({ ms, cpuMs, times: [...times], perRequest });
};
