/**
 * The varied mix's floor (issue 42 item 2): the SQL the server ran for the very URLs wrk asked,
 * replayed through the binding on one connection per core.
 *
 * What the server ran is recorded by a server started as the measured one was (the same settings,
 * its caches included) with `trace_debug` on: it is asked, one at a time and in wrk's order, the
 * warm-up's URLs and then the measured run's, and each URL's `_trace=1` lists its SQL. Statements
 * the query cache answered (`cached: true`: the measured server did not run them either, as it
 * had met the same count or facet before) are left out of the replay; statements stopped at their
 * time limit (`interrupted`) are replayed with a limit of the time they ran, by the read workers'
 * own progress handler (`runRead`).
 *
 * @module
 */

import { Connection } from "../../src/sqlite/mod.ts";
import type { BindParams } from "../../src/sqlite/values.ts";
import type { MixUrl } from "./mix.ts";
import { freePort, startServer } from "./process.ts";

/**
 * One statement a URL ran: its SQL and parameters, and for one stopped at its time limit the
 * milliseconds it ran (the replay stops it there too).
 */
export type Statement = [string, BindParams | null] | [string, BindParams | null, number];

/** What recording a list of URLs found. */
export interface Recording {
  /** Per URL of the measured list, the statements it ran on the database. */
  requests: Statement[][];
  /** Statements of those URLs the query cache answered (left out of the replay). */
  cached: number;
  /** Statements of those URLs stopped at their time limit (replayed up to the time they ran). */
  interrupted: number;
}

interface TraceSql {
  type: string;
  database: string;
  sql: string;
  params: BindParams | null;
  cached?: boolean;
  interrupted?: boolean;
  duration_ms: number;
}

/** The SQL entries of `url`'s trace (`_trace=1`): JSON's `_trace`, or the HTML page's panel. */
async function traced(base: string, url: string): Promise<TraceSql[]> {
  const response = await fetch(`${base}${url}${url.includes("?") ? "&" : "?"}_trace=1`);
  const text = await response.text();
  if (/\.json(\?|$)/.test(url)) return JSON.parse(text)._trace?.traces ?? [];
  const block = /<pre>(\{[\s\S]*?)<\/pre>/.exec(text)?.[1];
  const unescaped = block?.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return unescaped ? JSON.parse(unescaped).traces ?? [] : [];
}

/**
 * Records what each of `measured` runs on database `db` (a server on `path` started with
 * `serveArgs`, after `warmup` was asked of it), in order.
 */
export async function recordMix(
  path: string,
  db: string,
  warmup: readonly MixUrl[],
  measured: readonly MixUrl[],
  serveArgs: string[] = [],
): Promise<Recording> {
  const port = freePort();
  const server = await startServer(
    [Deno.execPath(), "run", "-A", "cli.ts", "serve", "-i", path, "-p", String(port)]
      .concat(["--no-access-log", "-s", "trace_debug", "1", ...serveArgs]),
    port,
    "/-/versions.json",
  );
  const recording: Recording = { requests: [], cached: 0, interrupted: 0 };
  try {
    for (const { url } of warmup) await traced(server.base, url);
    for (const { url } of measured) {
      const sql = (await traced(server.base, url))
        .filter((t) => t.type === "sql" && t.database === db);
      recording.cached += sql.filter((t) => t.cached).length;
      recording.interrupted += sql.filter((t) => t.interrupted).length;
      recording.requests.push(
        sql.filter((t) => !t.cached).map((t): Statement =>
          t.interrupted
            ? [t.sql, t.params ?? null, Math.max(1, Math.round(t.duration_ms))]
            : [t.sql, t.params ?? null]
        ),
      );
    }
  } finally {
    await server.stop();
  }
  return recording;
}

/** One replay of a recording. */
export interface Replay {
  /** Wall time of the whole replay, all threads at once. */
  ms: number;
  /** CPU time the replay's threads spent running the statements: the SQL's own cost. */
  cpuMs: number;
  /** Milliseconds each URL's statements took, in the recording's order. */
  perUrl: number[];
  /** Milliseconds by SQL text, all threads. */
  bySql: Map<string, number>;
}

/**
 * Replays `requests` on `path` through the binding: URL i on thread i % cores, each thread its own
 * connection, all threads at once.
 */
export async function replayMix(
  path: string,
  requests: Statement[][],
  cores = navigator.hardwareConcurrency,
): Promise<Replay> {
  const shares: Statement[][][] = Array.from({ length: cores }, () => []);
  requests.forEach((list, i) => shares[i % cores].push(list));
  const t0 = performance.now();
  const answers = await Promise.all(
    shares.map((share) =>
      new Promise<{ cpuMs: number; times: [string, number][]; perRequest: number[] }>(
        (resolve, reject) => {
          const worker = new Worker(new URL("./floor_worker.ts", import.meta.url), {
            type: "module",
          });
          worker.onmessage = (event) => (worker.terminate(), resolve(event.data));
          worker.onerror = (event) => (worker.terminate(), reject(new Error(event.message)));
          worker.postMessage({ path, requests: share });
        },
      )
    ),
  );
  const ms = performance.now() - t0;
  const bySql = new Map<string, number>();
  for (const answer of answers) {
    for (const [sql, time] of answer.times) bySql.set(sql, (bySql.get(sql) ?? 0) + time);
  }
  // URL i was the (i / cores)th request of thread i % cores.
  const perUrl = requests.map((_, i) => answers[i % cores].perRequest[Math.floor(i / cores)]);
  const cpuMs = answers.reduce((sum, answer) => sum + answer.cpuMs, 0);
  return { ms, cpuMs, perUrl, bySql };
}

/** The faster of two replays, after one that warms the file's pages and the code. */
export async function mixFloor(path: string, requests: Statement[][]): Promise<Replay> {
  await replayMix(path, requests);
  const runs = [await replayMix(path, requests), await replayMix(path, requests)];
  return runs.sort((a, b) => a.ms - b.ms)[0];
}

/**
 * Indexes the mix's slow pages could use (the bench file has none, as a freshly published file):
 * the HTML page filtered by `status` and sorted by `height`, the pages sorted by `planted`, and
 * the filters on `species` (sorted pages and facets).
 */
export const SUGGESTED_INDEXES = [
  "create index trees_status_height on trees (status, height)",
  "create index trees_planted on trees (planted)",
  "create index trees_species on trees (species)",
];

/** A copy of the file at `path` with {@link SUGGESTED_INDEXES}, next to it; returns its path. */
export function indexedCopy(path: string): string {
  const copy = path.replace(/\.db$/, "") + "-indexed.db";
  Deno.copyFileSync(path, copy);
  const conn = Connection.open(copy, { mode: "rw" });
  try {
    for (const sql of SUGGESTED_INDEXES) conn.exec(sql);
  } finally {
    conn.close();
  }
  return copy;
}
