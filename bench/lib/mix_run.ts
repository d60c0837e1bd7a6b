/**
 * The varied mix measured against its floor in one run, for `honest_load.ts` and `mix_floor.ts`:
 * wrk asks Vitrine (and the reference, when given) a warm-up list and then the measured list of
 * mix URLs, every URL different; a client that times each kind asks a third list; then the SQL
 * Vitrine ran for the measured URLs is recorded and replayed through the binding
 * (`mix_floor.ts` in this folder), all at once on one thread per core and by sixteen clients in a
 * closed loop as wrk asks (`mix_closed_loop.ts`). Nothing measured is asked twice: each list is drawn from its
 * own seed, and the warm-up's URLs differ from the measured ones (a URL asked before would find
 * its page and its queries kept).
 *
 * @module
 */

import { type MixUrl, mixUrls, urlListScript } from "./mix.ts";
import { byKind, percentile, type Timed, timedMix, timedMixAtRate } from "./mix_client.ts";
import {
  indexedCopy,
  mixFloor,
  type Recording,
  recordMix,
  type Replay,
  SUGGESTED_INDEXES,
} from "./mix_floor.ts";
import { type ClosedLoop, closedLoopReplay, openLoopReplay } from "./mix_closed_loop.ts";
import { cpuMs } from "./proc.ts";
import { LONG_QUERY_MS } from "../../src/db/query_costs.ts";
import type { ServerProcess } from "./process.ts";
import { fmt, ms } from "./report.ts";
import { wrk, type WrkResult } from "./wrk.ts";

/** Everything one mix measurement found. */
export interface MixRun {
  vitrine: WrkResult;
  reference: WrkResult | null;
  /** Vitrine's CPU (all threads) per measured request, ms. */
  cpuMs: number;
  /** The SQL Vitrine ran for the measured URLs, and its replay. */
  recording: Recording;
  floor: Replay;
  /** Requests per second of the replay: the measured URLs over its wall time. */
  floorRps: number;
  /**
   * The same replay on a copy of the file with the indexes the slow pages could use: what such
   * indexes would make of the floor.
   */
  indexedRps: number;
  /**
   * The floor under wrk's load: the recording replayed by sixteen clients in a closed loop, on one
   * thread per core serving them in the order asked, and on one thread per client.
   */
  closedLoop: { queued: ClosedLoop; shared: ClosedLoop; lightFirst: ClosedLoop };
  measured: MixUrl[];
  timed: { vitrine: Timed[]; reference: Timed[] | null };
  /**
   * Both servers asked at one steady rate, below what either answers under wrk (an open loop):
   * the rate, and each server's answers. Null without the reference.
   */
  sameRate: {
    rate: number;
    vitrine: Timed[];
    reference: Timed[];
    /** The floor's servers at the same rate: in the order asked, and light URLs first. */
    floor: { queued: ClosedLoop; lightFirst: ClosedLoop } | null;
  } | null;
  /**
   * Vitrine alone asked at a steady rate near its capacity (0.8x its wrk rate; an open loop, as
   * visitors arriving on their own on a busy day), beside the floor's servers at that rate in the
   * order asked and light URLs first: which order serves such visitors better.
   */
  busyRate: { rate: number; vitrine: Timed[]; queued: ClosedLoop; lightFirst: ClosedLoop };
}

/** Measures the mix on `vitrine` (and `reference`) serving `path` of `rows` trees. */
export async function runMix(options: {
  path: string;
  rows: number;
  seconds: number;
  vitrine: ServerProcess;
  reference: ServerProcess | null;
  /** Options Vitrine was served with beyond the plain command (the recording server gets them). */
  serveArgs?: string[];
}): Promise<MixRun> {
  const { path, rows, seconds } = options;
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-mix-run-" });
  try {
    const lists = { warm: 12, measured: 11, timed: 13, rated: 14, busy: 15 };
    const urls = Object.fromEntries(
      Object.entries(lists).map(([name, seed]) => [name, mixUrls(50_000, rows, seed)]),
    ) as Record<keyof typeof lists, MixUrl[]>;
    const warmScript = urlListScript(dir, "warm", urls.warm);
    const script = urlListScript(dir, "measured", urls.measured);
    const measure = async (server: ServerProcess) => {
      const warm = await wrk(`${server.base}/`, { seconds: 2, script: warmScript });
      const before = cpuMs(server.pid);
      const result = await wrk(`${server.base}/`, { seconds, script });
      return { warm, result, cpu: (cpuMs(server.pid) - before) / Math.max(1, result.requests) };
    };
    const v = await measure(options.vitrine);
    const ref = options.reference ? await measure(options.reference) : null;
    const timed = {
      vitrine: await timedMix(options.vitrine.base, urls.timed, seconds),
      reference: options.reference
        ? await timedMix(options.reference.base, urls.timed, seconds)
        : null,
    };
    let sameRate: MixRun["sameRate"] = null;
    if (options.reference && ref) {
      // Below the slower server's own rate, so that both can keep up.
      const rate = Math.max(1, Math.round(0.8 * Math.min(v.result.rps, ref.result.rps)));
      sameRate = {
        rate,
        vitrine: await timedMixAtRate(options.vitrine.base, urls.rated, rate, seconds),
        reference: await timedMixAtRate(options.reference.base, urls.rated, rate, seconds),
        floor: null,
      };
    }
    const busy = Math.max(1, Math.round(0.8 * v.result.rps));
    const busyTimed = await timedMixAtRate(options.vitrine.base, urls.busy, busy, seconds);
    // wrk asked each list from its start: the first `requests` URLs of each.
    const measured = urls.measured.slice(0, v.result.requests);
    const recording = await recordMix(
      path,
      "bench",
      urls.warm.slice(0, v.warm.requests),
      measured,
      options.serveArgs,
    );
    const floor = await mixFloor(path, recording.requests);
    // After the floor's replays: the file's pages and the code are warm.
    const cores = navigator.hardwareConcurrency;
    const light = floor.perUrl.map((ms) => ms < LONG_QUERY_MS);
    const closedLoop = {
      queued: await closedLoopReplay(path, recording.requests, cores),
      shared: await closedLoopReplay(path, recording.requests, 16),
      lightFirst: await closedLoopReplay(path, recording.requests, cores, 16, light),
    };
    const busyRate = {
      rate: busy,
      vitrine: busyTimed,
      queued: await openLoopReplay(path, recording.requests, cores, busy, seconds),
      lightFirst: await openLoopReplay(path, recording.requests, cores, busy, seconds, light),
    };
    if (sameRate) {
      const { rate } = sameRate;
      sameRate.floor = {
        queued: await openLoopReplay(path, recording.requests, cores, rate, seconds),
        lightFirst: await openLoopReplay(path, recording.requests, cores, rate, seconds, light),
      };
    }
    const indexed = indexedCopy(path);
    const withIndexes = await mixFloor(indexed, recording.requests);
    Deno.removeSync(indexed);
    return {
      vitrine: v.result,
      reference: ref?.result ?? null,
      cpuMs: v.cpu,
      recording,
      floor,
      floorRps: measured.length / (floor.ms / 1000),
      indexedRps: measured.length / (withIndexes.ms / 1000),
      closedLoop,
      measured,
      timed,
      sameRate,
      busyRate,
    };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

/** The floor line's text for the main table. */
export function floorText(run: MixRun): string {
  const statements = run.recording.requests.reduce((n, list) => n + list.length, 0);
  return `the SQL Vitrine ran for the same ${fmt(run.measured.length)} URLs (${
    fmt(statements)
  } statements; ${
    fmt(run.recording.cached)
  } the query cache answered left out), on ${navigator.hardwareConcurrency} threads: ${
    fmt(run.floorRps)
  } req/s`;
}

/**
 * Prints the mix's latency beside its floor's under the same sixteen clients (closed loop), and
 * what the target "p99 under a third of the reference's" means against that floor.
 */
export function printMixLatencyFloor(run: MixRun): void {
  const cores = navigator.hardwareConcurrency;
  const { queued, shared, lightFirst } = run.closedLoop;
  const v = run.vitrine;
  const ref = run.reference && run.reference.requests > 0 ? run.reference : null;
  console.log(
    `\nThe mix's latency against its floor under the same load: sixteen clients in a closed loop ` +
      `(as wrk -c16), each taking the next of the ${
        fmt(run.measured.length)
      } URLs wrk asked Vitrine when its last is answered; the floor's latency runs from when a ` +
      `client asked to when the URL's recorded statements finished, on servers of zero overhead.\n`,
  );
  console.log("| the mix, 16 clients | req/s | p50 | p99 | max | Vitrine p99 ÷ this p99 |");
  console.log("|---|---:|---:|---:|---:|---:|");
  const line = (name: string, r: { rps: number; p50: number; p99: number; max: number }) =>
    console.log(
      `| ${name} | ${fmt(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${
        fmt(v.p99 / r.p99, 2)
      }x |`,
    );
  line("Vitrine (wrk)", v);
  if (ref) line("reference (wrk)", ref);
  line(`floor: ${cores} threads, one connection each, a queue in the order asked`, queued);
  line("floor: 16 threads, the cores shared among them by the OS", shared);
  line(
    `floor: ${cores} threads, light URLs (under ${LONG_QUERY_MS} ms of SQL) first, as Vitrine orders them`,
    lightFirst,
  );
  if (!ref) return;
  const target = ref.p99 / 3;
  const best = Math.min(queued.p99, shared.p99);
  console.log(
    `\nTarget: Vitrine's p99 under a third of the reference's, ${ms(ref.p99)} ÷ 3 = ${
      ms(target)
    }: ${v.p99 < target ? "met" : "missed"} (${ms(v.p99)}). ` +
      (best > target
        ? `The SQL alone under the same sixteen clients exceeds it too: its p99 is ${
          ms(best)
        } at best (in the order asked). `
        : `Only a server that answers in the order asked meets it (p99 ${ms(queued.p99)}), ` +
          `by making its light pages wait behind the scans (p50 ${ms(queued.p50)}). `) +
      `Serving light pages first, as Vitrine does, a server of zero overhead has p99 ${
        ms(lightFirst.p99)
      } (Vitrine ${fmt(v.p99 / lightFirst.p99, 2)}x that): in a closed loop every client ` +
      `answered at once asks again at once, so the clients gather on the scans. At one steady ` +
      `rate (visitors arriving on their own, below) the two orders give the heavy pages about ` +
      `the same p99, and the light ones sooner.`,
  );
}

/** Prints where the mix's time goes: by kind (floor and latency) and the floor's statements. */
export function printMixDetails(run: MixRun): void {
  const sqlMs = run.floor.perUrl.reduce((a, b) => a + b, 0) / run.floor.perUrl.length;
  const sqlCpu = run.floor.cpuMs / run.floor.perUrl.length;
  console.log(
    `\nThe mix in detail. Vitrine's CPU (all threads) per request: ${fmt(run.cpuMs, 2)} ms; ` +
      `its SQL alone (the replay's CPU): ${fmt(sqlCpu, 2)} ms a request, so ` +
      `${fmt(run.cpuMs - sqlCpu, 2)} ms outside SQL (routing, permissions, rendering, JSON, ` +
      `HTTP, the workers' hand-offs). Of the measured URLs' statements, ${
        fmt(run.recording.cached)
      } were answered by ` +
      `the query cache (not replayed) and ${
        fmt(run.recording.interrupted)
      } stopped at their time limit when recorded (replayed up to the time they ran).`,
  );
  const kinds = byKind(run.timed.vitrine);
  const refKinds = run.timed.reference ? byKind(run.timed.reference) : null;
  const floorByKind = new Map<string, number>();
  run.measured.forEach((u, i) =>
    floorByKind.set(u.kind, (floorByKind.get(u.kind) ?? 0) + run.floor.perUrl[i])
  );
  const floorTotal = [...floorByKind.values()].reduce((a, b) => a + b, 0);
  const all = run.timed.vitrine.map((t) => t.ms);
  const refAll = run.timed.reference?.map((t) => t.ms) ?? [];
  const count = (list: Timed[] | null) => fmt(list?.length);
  console.log(
    `\nBy kind, from a client timing each answer (16 at a time, ${
      count(run.timed.vitrine)
    } answers from Vitrine${
      run.timed.reference ? `, ${count(run.timed.reference)} from the reference` : ""
    }); "slowest 2%" is how many of all the slowest 2% of Vitrine's answers are of that kind; ` +
      `"clients on it": how many of the 16 clients were waiting for that kind, on average (its ` +
      `share of all the answers' times); floor: the kind's share of the replay's time.\n`,
  );
  console.log(
    "| kind | share of requests | floor ms a URL | share of the floor | Vitrine p50 | p99 | " +
      "in the slowest 2% | clients on it | facets timed out | reference p50 | p99 |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const held = new Map<string, number>();
  for (const t of run.timed.vitrine) held.set(t.kind, (held.get(t.kind) ?? 0) + t.ms);
  // Little's law: the clients are always waiting on some answer, each kind's share of the time
  // spent waiting is its share of the 16 (answers that ended after the run are counted whole).
  const heldAll = [...held.values()].reduce((a, b) => a + b, 0);
  const measuredCount = new Map<string, number>();
  for (const u of run.measured) measuredCount.set(u.kind, (measuredCount.get(u.kind) ?? 0) + 1);
  for (const [kind, k] of [...kinds].sort((a, b) => b[1].p99 - a[1].p99)) {
    const r = refKinds?.get(kind);
    const floorMs = floorByKind.get(kind) ?? 0;
    console.log(
      `| ${kind} | ${fmt((100 * k.n) / run.timed.vitrine.length, 1)}% | ${
        fmt(floorMs / (measuredCount.get(kind) ?? 1), 1)
      } | ${fmt((100 * floorMs) / floorTotal, 1)}% | ${ms(k.p50)} | ${ms(k.p99)} | ${
        fmt(k.inTail)
      } | ${fmt((16 * (held.get(kind) ?? 0)) / heldAll, 1)} | ${fmt(k.timedOut)} | ${
        r ? ms(r.p50) : ""
      } | ${r ? ms(r.p99) : ""} |`,
    );
  }
  console.log(
    `| all | 100% | ${fmt(sqlMs, 1)} | 100% | ${ms(percentile(all, 50))} | ${
      ms(percentile(all, 99))
    } | | 16 | | ${refAll.length ? ms(percentile(refAll, 50)) : ""} | ${
      refAll.length ? ms(percentile(refAll, 99)) : ""
    } |`,
  );
  if (run.sameRate) {
    const { rate, vitrine, reference } = run.sameRate;
    const line = (list: Timed[]) => {
      const times = list.map((t) => t.ms);
      return `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}, ${
        fmt(list.filter((t) => !t.ok).length)
      } failed`;
    };
    const p99 = (list: Timed[]) => percentile(list.map((t) => t.ms), 99);
    const target = p99(reference) / 3;
    console.log(
      `\nBoth asked the mix at the same steady rate, ${fmt(rate)} ${
        rate === 1 ? "request" : "requests"
      } a second (0.8x the ` +
        `slower one's wrk rate; each request's time counted from when it was due): Vitrine ${
          line(vitrine)
        }; the reference ${line(reference)}. Target (p99 under a third of the reference's, ${
          ms(target)
        }): ${p99(vitrine) < target ? "met" : "missed"}, ${
          fmt(p99(vitrine) / p99(reference), 2)
        }x.`,
    );
    if (run.sameRate.floor) {
      const { queued, lightFirst } = run.sameRate.floor;
      const of = (r: ClosedLoop) => `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
      console.log(
        `The floor's servers at the same rate (the recorded URLs' SQL, zero overhead): in the ` +
          `order asked ${of(queued)}; light URLs first ${of(lightFirst)}.`,
      );
    }
  }
  const busy = run.busyRate;
  const times = busy.vitrine.map((t) => t.ms);
  const of = (r: { p50: number; p99: number }) => `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
  console.log(
    `\nVitrine asked the mix at a steady rate near its capacity, ${fmt(busy.rate)} requests a ` +
      `second (0.8x its wrk rate): ${
        of({ p50: percentile(times, 50), p99: percentile(times, 99) })
      }, ${
        fmt(busy.vitrine.filter((t) => !t.ok).length)
      } failed. The floor's servers at that rate: in the order asked ${of(busy.queued)}; light ` +
      `URLs first ${of(busy.lightFirst)}.`,
  );
  const total = [...run.floor.bySql.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\nThe same replay on a copy of the file with the indexes the slow pages could use (${
      SUGGESTED_INDEXES.map((sql) => `\`${sql.replace(/^create index \w+ on /, "")}\``).join(", ")
    }): ${fmt(run.indexedRps)} req/s, ${fmt(run.indexedRps / run.floorRps, 1)}x the floor.`,
  );
  console.log("\nThe floor's statements by their share of its time:\n");
  console.log("| share | ms in all | statement |");
  console.log("|---:|---:|---|");
  const top = [...run.floor.bySql].sort((a, b) => b[1] - a[1]).slice(0, 8);
  for (const [sql, time] of top) {
    const text = sql.replace(/\s+/g, " ").slice(0, 140).replaceAll("|", "\\|");
    console.log(`| ${fmt((100 * time) / total, 1)}% | ${fmt(time)} | \`${text}\` |`);
  }
}
