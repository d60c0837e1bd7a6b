/**
 * How `bench/load.ts` prints its results: one Markdown table per section, a line per endpoint.
 *
 * @module
 */

/** One row of a section's table. */
export interface Line {
  endpoint: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** Server CPU (all threads) per request, microseconds. */
  cpu?: number;
  floor?: string;
  ratio?: string;
  target?: string;
  met?: boolean | null;
  note?: string;
}

/** A number with thousands separators and `digits` decimals; empty when unknown. */
export const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || Number.isNaN(n) ? "" : n.toLocaleString("en", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
/** Milliseconds, with two decimals under 10. */
export const ms = (n: number | undefined) =>
  n === undefined ? "" : n < 10 ? `${fmt(n, 2)} ms` : `${fmt(n, 0)} ms`;

/** Prints a section's table under `title`. */
export function table(title: string, lines: Line[]): void {
  console.log(`\n## ${title}\n`);
  console.log(
    "| endpoint | req/s | p50 | p99 | CPU µs/req | floor (same run) | ratio | target | met |",
  );
  console.log("|---|---:|---:|---:|---:|---|---:|---|:-:|");
  for (const l of lines) {
    const met = l.met === undefined || l.met === null ? "" : l.met ? "yes" : "**no**";
    console.log(
      `| ${l.endpoint}${l.note ? ` (${l.note})` : ""} | ${fmt(l.rps)} | ${ms(l.p50)} | ${
        ms(l.p99)
      } | ${fmt(l.cpu)} | ${l.floor ?? ""} | ${l.ratio ?? ""} | ${l.target ?? ""} | ${met} |`,
    );
  }
}

/** "106 MB (50 file-backed, 56 private)" */
export function memoryText(memory: { rss: number; file: number; private: number }): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  return `${mb(memory.rss)} MB (${mb(memory.file)} file-backed, ${mb(memory.private)} private)`;
}
