/**
 * A worker of `bench/mix_floor.ts` (and of `parallelFloorRps`, `floors.ts`): runs the SQL of its
 * share of the mix's requests through the binding, as fast as it can, and answers how long each
 * statement took, and the CPU time its thread spent running them (its boot and connection left
 * out).
 *
 * Sent `{ path, serve: true }` instead, it keeps its connection open and serves one request at a
 * time as a server's thread would: each later message `{ id, statements }` is answered
 * `{ id, ms }` when its statements have run (the closed-loop replay, `mix_closed_loop.ts`).
 *
 * @module
 */

import { Connection } from "../../src/sqlite/mod.ts";
import type { BindParams } from "../../src/sqlite/values.ts";
import { threadCpuMs } from "../../src/util/thread_clock.ts";
import { runRead } from "../../src/db/read_query.ts";

type Statement = [string, BindParams | null, number?];

interface Job {
  path: string;
  /** Per request its statements: SQL, parameters, and a time limit (ms) for some. */
  requests?: Statement[][];
  /** Keep the connection and answer one request per later message. */
  serve?: boolean;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
};

/** Runs one request's statements on `conn`, adding each statement's time to `times`. */
function runStatements(conn: Connection, statements: Statement[], times: Map<string, number>) {
  for (const [sql, params, limitMs] of statements) {
    const s0 = performance.now();
    if (limitMs === undefined) conn.query(sql, params ?? undefined);
    else {
      // Stopped at its time limit when recorded: it runs no longer than it ran then, by the
      // same progress handler as in a read worker.
      const request = { sql, params, maxRows: null, timeLimitMs: limitMs, deadline: null };
      try {
        runRead(conn, request);
      } catch { /* interrupted, as it was */ }
    }
    times.set(sql, (times.get(sql) ?? 0) + performance.now() - s0);
  }
}

scope.onmessage = ({ data }: MessageEvent<Job>) => {
  const conn = Connection.open(data.path, { mode: "ro" });
  const times = new Map<string, number>();
  if (data.serve) {
    scope.onmessage = ({ data }: MessageEvent<{ id: number; statements: Statement[] }>) => {
      const t0 = performance.now();
      runStatements(conn, data.statements, times);
      scope.postMessage({ id: data.id, ms: performance.now() - t0 });
    };
    scope.postMessage({ ready: true });
    return;
  }
  /** Milliseconds each request's statements took, in the order of `data.requests`. */
  const perRequest: number[] = [];
  const t0 = performance.now();
  const cpu0 = threadCpuMs();
  for (const statements of data.requests ?? []) {
    const r0 = performance.now();
    runStatements(conn, statements, times);
    perRequest.push(performance.now() - r0);
  }
  const ms = performance.now() - t0;
  const cpuMs = threadCpuMs() - cpu0;
  conn.close();
  scope.postMessage({ ms, cpuMs, times: [...times], perRequest });
};
