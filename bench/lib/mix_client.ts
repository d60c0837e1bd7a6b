/**
 * The mix asked by a client that times every answer and knows its URL's kind, which wrk cannot
 * tell: `connections` requests at a time, the list in order, for `seconds`. What makes up a slow
 * tail (issue 42 item 2) is read from it, kind by kind, beside wrk's overall figures.
 *
 * @module
 */

import type { MixUrl } from "./mix.ts";

/** One answered request. */
export interface Timed {
  kind: string;
  ms: number;
  ok: boolean;
  /** A facet the page asked for gave up at its time limit (`facets_timed_out` not empty). */
  facetTimedOut: boolean;
}

/** Asks `urls` of `base` in order, `connections` at a time, for `seconds`; each answer timed. */
export async function timedMix(
  base: string,
  urls: readonly MixUrl[],
  seconds: number,
  connections = 16,
): Promise<Timed[]> {
  const answers: Timed[] = [];
  let next = 0;
  const stopAt = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < stopAt) {
      const { kind, url } = urls[next++ % urls.length];
      const t0 = performance.now();
      try {
        const response = await fetch(base + url);
        const text = await response.text();
        answers.push({
          kind,
          ms: performance.now() - t0,
          ok: response.ok,
          facetTimedOut: /"facets_timed_out":\["/.test(text),
        });
      } catch {
        answers.push({ kind, ms: performance.now() - t0, ok: false, facetTimedOut: false });
      }
    }
  }));
  return answers;
}

/**
 * Asks `urls` of `base` in order at a steady `rate` (requests a second) for `seconds`, each at its
 * time whatever the others' answers (an open loop, where wrk's sixteen clients wait for their
 * answers): two servers asked at the same rate have the same load to carry. A request's time
 * counts from when it was due, so a server that falls behind is charged for the wait too.
 */
export async function timedMixAtRate(
  base: string,
  urls: readonly MixUrl[],
  rate: number,
  seconds: number,
): Promise<Timed[]> {
  const answers: Promise<Timed>[] = [];
  const t0 = performance.now();
  const total = Math.floor(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { kind, url } = urls[i % urls.length];
    answers.push(
      fetch(base + url).then(async (response) => {
        const text = await response.text();
        return {
          kind,
          ms: performance.now() - due,
          ok: response.ok,
          facetTimedOut: /"facets_timed_out":\["/.test(text),
        };
      }).catch(() => ({ kind, ms: performance.now() - due, ok: false, facetTimedOut: false })),
    );
  }
  return await Promise.all(answers);
}

/** The `p`th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Per kind: requests, p50, p99, and how many of the slowest `tail` percent (all kinds) it has. */
export function byKind(
  answers: readonly Timed[],
  tail = 2,
): Map<string, { n: number; p50: number; p99: number; inTail: number; timedOut: number }> {
  const cut = percentile(answers.map((a) => a.ms), 100 - tail);
  const kinds = new Map<string, Timed[]>();
  for (const a of answers) kinds.set(a.kind, [...(kinds.get(a.kind) ?? []), a]);
  const out = new Map();
  for (const [kind, list] of kinds) {
    const ms = list.map((a) => a.ms);
    out.set(kind, {
      n: list.length,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      inTail: list.filter((a) => a.ms > cut).length,
      timedOut: list.filter((a) => a.facetTimedOut).length,
    });
  }
  return out;
}
