/**
 * Running `wrk` (Debian's package) and reading its report: requests per second, latency
 * percentiles and failures. Optional Lua scripts make every request a different URL.
 *
 * @module
 */

/** What one wrk run measured. */
export interface WrkResult {
  rps: number;
  requests: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** The slowest answer, in milliseconds. */
  max: number;
  /** Non-2xx/3xx answers plus socket errors. */
  errors: number;
  /** The answers among {@link errors} (a page interrupted at its time limit is a 400). */
  nonSuccess: number;
}

/** Options of {@link wrk}. */
export interface WrkOptions {
  connections?: number;
  seconds?: number;
  /** Path of a Lua script (`request()` builds each request). */
  script?: string;
  headers?: Record<string, string>;
}

function millis(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!match) return NaN;
  const value = Number(match[1]);
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[match[2]]!;
}

/** Runs wrk (1 thread) against `url` and parses its report. */
export async function wrk(url: string, options: WrkOptions = {}): Promise<WrkResult> {
  const { connections = 16, seconds = 5, script, headers = {} } = options;
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "10s"];
  if (script) args.push("-s", script);
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
  args.push(url);
  const output = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) throw new Error(`wrk failed: ${new TextDecoder().decode(output.stderr)}`);
  const number = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const percentile = (p: string) =>
    millis(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(text)?.[1] ?? "");
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    requests: number(/(\d+) requests in/),
    p50: percentile("50"),
    p99: percentile("99"),
    // wrk's thread line: "Latency  <avg> <stdev> <max> <+/- stdev>".
    max: millis(/^[ \t]+Latency[ \t]+\S+[ \t]+\S+[ \t]+(\S+)/m.exec(text)?.[1] ?? ""),
    errors: number(/Non-2xx or 3xx responses: (\d+)/) +
      (socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    nonSuccess: number(/Non-2xx or 3xx responses: (\d+)/),
  };
}
