/**
 * A small parser of the Prometheus text exposition format (0.0.4), strict enough to reject what
 * a Prometheus server would: every sample line must be `name{labels} value`, label values
 * quoted with `\\`, `\"` and `\n` escapes, values numbers (or +Inf, -Inf, NaN), and every
 * sample must belong to a metric declared by a `# TYPE` line before it.
 */

/** One sample: its full name (with `_bucket`, `_sum`…), labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its type, help and samples. */
export interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** Parses `text`; throws on the first malformed line, naming it. */
export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split("\n");
  if (lines.at(-1) !== "") throw new Error("The text must end with a newline");
  for (const [index, line] of lines.slice(0, -1).entries()) {
    const fail = (why: string) => {
      throw new Error(`Line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
      const [, keyword, name, ...rest] = line.split(" ");
      if (!NAME.test(name) || NAME.exec(name)![0] !== name) fail("bad metric name");
      const family = families.get(name) ?? { type: "untyped", help: "", samples: [] };
      if (keyword === "TYPE") {
        if (!TYPES.has(rest.join(" "))) fail("unknown type");
        if (family.samples.length) fail("TYPE after samples");
        family.type = rest.join(" ");
      } else {
        family.help = rest.join(" ").replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      }
      families.set(name, family);
      continue;
    }
    if (line.startsWith("#") || line.trim() === "") continue;
    const sample = parseSample(line, fail);
    const family = familyOf(families, sample.name);
    if (!family) fail("sample of an undeclared metric");
    family!.samples.push(sample);
  }
  for (const [name, family] of families) {
    if (family.type === "histogram") checkHistogram(name, family);
  }
  return families;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const name = NAME.exec(line)?.[0];
  if (!name) fail("no metric name");
  let rest = line.slice(name!.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = LABEL_NAME.exec(rest)?.[0];
      if (!label || !rest.slice(label.length).startsWith('="')) fail("bad label");
      rest = rest.slice(label!.length + 2);
      let value = "";
      for (;;) {
        if (rest === "") fail("unterminated label value");
        const char = rest[0];
        if (char === "\\") {
          const escaped = rest[1];
          if (escaped === "n") value += "\n";
          else if (escaped === "\\" || escaped === '"') value += escaped;
          else fail("bad escape");
          rest = rest.slice(2);
        } else if (char === '"') {
          rest = rest.slice(1);
          break;
        } else {
          value += char;
          rest = rest.slice(1);
        }
      }
      if (label! in labels) fail("repeated label");
      labels[label!] = value;
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) fail("expected , or }");
    }
    rest = rest.slice(1);
  }
  const parts = rest.trim().split(/\s+/);
  if (!rest.startsWith(" ") || parts.length < 1 || parts.length > 2) fail("expected a value");
  const raw = parts[0];
  const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
  if (raw !== "NaN" && Number.isNaN(value)) fail("the value is not a number");
  return { name: name!, labels, value };
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  const exact = families.get(sampleName);
  if (exact) return exact;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sampleName.endsWith(suffix)) continue;
    const family = families.get(sampleName.slice(0, -suffix.length));
    if (family?.type === "histogram") return family;
  }
  return undefined;
}

/** Buckets are cumulative, end with +Inf, and +Inf equals _count. */
function checkHistogram(name: string, family: Family): void {
  const series = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    if (sample.name !== `${name}_bucket`) continue;
    const { le, ...rest } = sample.labels;
    if (le === undefined) throw new Error(`${name}: a bucket without le`);
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const [key, buckets] of series) {
    let previous = -1;
    for (const bucket of buckets) {
      if (bucket.value < previous) throw new Error(`${name}${key}: buckets not cumulative`);
      previous = bucket.value;
    }
    if (buckets.at(-1)!.labels.le !== "+Inf") throw new Error(`${name}${key}: no +Inf bucket`);
    const count = family.samples.find((s) =>
      s.name === `${name}_count` && JSON.stringify(s.labels) === key
    );
    if (count?.value !== previous) throw new Error(`${name}${key}: +Inf bucket is not _count`);
  }
}

/** The value of the sample of `family` whose labels include `labels` (0 when absent). */
export function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) {
        return sample.value;
      }
    }
  }
  return 0;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) {
        sum += sample.value;
      }
    }
  }
  return sum;
}
