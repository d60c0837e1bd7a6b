/**
 * A small metrics registry written out in the Prometheus text exposition format (version 0.0.4):
 * counters, histograms, and gauges read when the metrics are collected. Nothing here knows about
 * HTTP or SQLite; `src/app/metrics.ts` declares Vitrine's metrics.
 *
 * @module
 */

/** Label values by label name. */
export type Labels = Record<string, string>;

/** The content type of the text format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

interface Metric {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  /** The metric's sample lines, each series also labelled with `extra` (first). */
  lines(extra: Labels): string[];
}

/**
 * One metric's samples, written out: what a process shares with the other copies of the same
 * server (`MetricsRegistry.families`, `familiesText`).
 */
export interface MetricFamily {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  lines: string[];
}

/** `{a="x",b="y"}`, values escaped as the format requires (backslash, quote, newline). */
function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([name, value]) =>
    `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`
  );
  return parts.length ? `{${parts.join(",")}}` : "";
}

function numberText(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

/** The key of one label combination (in the metric's label order). */
function keyOf(names: readonly string[], labels: Labels): string {
  let key = "";
  for (const name of names) key += (labels[name] ?? "") + "\u0000";
  return key;
}

/** A monotonically increasing count per label combination. */
export class Counter implements Metric {
  readonly type = "counter";
  #values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string, readonly labelNames: string[] = []) {}

  /** Adds `by` (default 1) to the count of `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    const key = keyOf(this.labelNames, labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += by;
    else this.#values.set(key, { labels, value: by });
  }

  /** The current count of `labels` (0 when never incremented). */
  get(labels: Labels = {}): number {
    return this.#values.get(keyOf(this.labelNames, labels))?.value ?? 0;
  }

  lines(extra: Labels): string[] {
    return [...this.#values.values()].map(({ labels, value }) =>
      `${this.name}${labelText({ ...extra, ...labels })} ${numberText(value)}`
    );
  }
}

/** Observations counted into cumulative buckets, with their sum and count. */
export class Histogram implements Metric {
  readonly type = "histogram";
  #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly buckets: readonly number[];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: string[] = [],
    buckets: readonly number[],
  ) {
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  /** Records one observation of `value` for `labels`. */
  observe(labels: Labels, value: number): void {
    const key = keyOf(this.labelNames, labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // Counts are kept per bucket and made cumulative when written.
    const index = this.buckets.findIndex((bound) => value <= bound);
    if (index >= 0) series.counts[index]++;
    series.sum += value;
    series.count++;
  }

  lines(extra: Labels): string[] {
    const out: string[] = [];
    for (const series of this.#series.values()) {
      const { counts, sum, count } = series;
      const labels = { ...extra, ...series.labels };
      let running = 0;
      this.buckets.forEach((bound, i) => {
        running += counts[i];
        out.push(
          `${this.name}_bucket${labelText({ ...labels, le: numberText(bound) })} ${running}`,
        );
      });
      out.push(`${this.name}_bucket${labelText({ ...labels, le: "+Inf" })} ${count}`);
      out.push(`${this.name}_sum${labelText(labels)} ${numberText(sum)}`);
      out.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return out;
  }
}

/** A value read when metrics are collected: `collect` returns one sample per label set. */
export class Gauge implements Metric {
  readonly type: "gauge" | "counter";
  constructor(
    readonly name: string,
    readonly help: string,
    readonly collect: () => [Labels, number][],
    /** "counter" for a count kept elsewhere (e.g. cache hits) and only read here. */
    type: "gauge" | "counter" = "gauge",
  ) {
    this.type = type;
  }

  lines(extra: Labels): string[] {
    return this.collect().map(([labels, value]) =>
      `${this.name}${labelText({ ...extra, ...labels })} ${numberText(value)}`
    );
  }
}

/** Metrics in registration order, written out by {@link MetricsRegistry.text}. */
export class MetricsRegistry {
  #metrics: Metric[] = [];

  /** Registers and returns a counter. */
  counter(name: string, help: string, labelNames: string[] = []): Counter {
    return this.#add(new Counter(name, help, labelNames));
  }

  /** Registers and returns a histogram with the given bucket upper bounds. */
  histogram(
    name: string,
    help: string,
    labelNames: string[],
    buckets: readonly number[],
  ): Histogram {
    return this.#add(new Histogram(name, help, labelNames, buckets));
  }

  /** Registers a gauge (or a counter read from elsewhere) whose samples `collect` returns. */
  gauge(
    name: string,
    help: string,
    collect: () => [Labels, number][],
    type: "gauge" | "counter" = "gauge",
  ): Gauge {
    return this.#add(new Gauge(name, help, collect, type));
  }

  #add<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }

  /** Every metric with its samples now, each series also labelled with `extra`. */
  families(extra: Labels = {}): MetricFamily[] {
    return this.#metrics.map((metric) => ({
      name: metric.name,
      help: metric.help,
      type: metric.type,
      lines: metric.lines(extra),
    }));
  }

  /** Every metric in the text format, ending with a newline. */
  text(): string {
    return familiesText([this.families()]);
  }
}

/**
 * Several sets of families (one per process) as one text: each metric once, with its help and
 * type from the first set that has it, followed by its samples from every set, in order.
 */
export function familiesText(sets: readonly MetricFamily[][]): string {
  const merged = new Map<string, MetricFamily>();
  for (const families of sets) {
    for (const family of families) {
      const seen = merged.get(family.name);
      if (seen) seen.lines.push(...family.lines);
      else merged.set(family.name, { ...family, lines: [...family.lines] });
    }
  }
  const out: string[] = [];
  for (const { name, help, type, lines } of merged.values()) {
    const escaped = help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    out.push(`# HELP ${name} ${escaped}`, `# TYPE ${name} ${type}`, ...lines);
  }
  return out.join("\n") + "\n";
}
