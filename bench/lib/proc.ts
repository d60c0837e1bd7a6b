/**
 * Reading a server process's CPU time and memory from `/proc` (Linux), so that a benchmark can
 * report server CPU per request — steadier than requests per second on a shared machine.
 *
 * @module
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** User + system CPU milliseconds used so far by process `pid` (all its threads). */
export function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU milliseconds of `pid` and every process under it (`serve --processes N` serves from
 * child processes; a single server's read workers are threads, counted by {@link cpuMs}).
 */
export function treeCpuMs(pid: number): number {
  let total = 0;
  try {
    total = cpuMs(pid);
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const children = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
      for (const child of children.split(" ").filter(Boolean)) total += treeCpuMs(Number(child));
    }
  } catch { /* the process ended meanwhile */ }
  return total;
}

/** Resident set size of `pid` in bytes. */
export function rssBytes(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * Resident memory of `pid` in bytes, split: `file` is pages mapped from files (Deno's executable
 * and the libraries: clean, shared with other processes running them, and dropped by the kernel
 * under pressure), `private` the anonymous memory the process itself allocated (heaps).
 */
export function rssSplit(pid: number): { rss: number; file: number; private: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, file: kb("RssFile") * 1024, private: kb("RssAnon") * 1024 };
}

/**
 * Samples the RSS of `pid` every `everyMs` until stopped; reports the peak, and the peak of its
 * private (anonymous) part: file-backed pages are mostly Deno's executable, the same for any server.
 */
export function rssSampler(
  pid: number,
  everyMs = 20,
): { stop(): number; peak(): number; privatePeak(): number } {
  let { rss: peak, private: privatePeak } = rssSplit(pid);
  const timer = setInterval(() => {
    try {
      const now = rssSplit(pid);
      peak = Math.max(peak, now.rss);
      privatePeak = Math.max(privatePeak, now.private);
    } catch { /* the process ended */ }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
    peak: () => peak,
    privatePeak: () => privatePeak,
  };
}

/** Machine description for the report: CPU model, cores, memory, load. */
export function machine(): string {
  const cpu = /model name\s+:\s+(.*)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? "?";
  const mem = Number(/MemTotal:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/meminfo"))?.[1]) /
    1024 / 1024;
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  return `${cpu}, ${navigator.hardwareConcurrency} cores, ${mem.toFixed(1)} GB RAM, ` +
    `load average ${load}, Deno ${Deno.version.deno}`;
}
