/**
 * `vitrine insert` against `sqlite3 -csv .import` of the same CSV file in the same run: rows per
 * second of each (types inferred by Vitrine; sqlite3 stores text), their ratio (of wall time, the
 * target, and of CPU time, which a loaded machine blurs less), and the peak memory the Vitrine
 * process holds for itself (`RssAnon`) while importing. `deno run -A cli.ts insert` restarts itself
 * once to have Vitrine's V8 flags; the installed command (README) is given them and does not,
 * which the line "installed" measures. Both run as their own process on /dev/shm
 * (when there is one), so disk flushes do not decide the result; each runs three times (or
 * `--rounds=N`), taking turns, and the best run counts. The load average before and after is
 * printed: on a shared machine it says how far the wall times can be trusted.
 *
 * Run: `deno run -A bench/import.ts [MB]` (default 50: a CSV of about that size is generated).
 *
 * `deno run -A bench/import.ts 1024 --memory` measures memory alone: one plain `vitrine insert`
 * of a 1 GB CSV (generated in the system's temporary folder, on disk, and deleted afterwards),
 * with its peak VmRSS and RssAnon sampled every 20 ms. The target is under 150 MiB of RssAnon
 * whatever the file's size.
 */

import { fileURLToPath } from "node:url";
import { cpuMs, rssSampler } from "./lib/proc.ts";
import { V8_FLAGS_OPTION } from "../src/util/v8_flags.ts";

const memoryOnly = Deno.args.includes("--memory");
const rounds = Number(Deno.args.find((arg) => arg.startsWith("--rounds="))?.slice(9) ?? 3);
const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const MB = Number(Deno.args.find((arg) => !arg.startsWith("--")) ?? 50);
const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const shm = (() => {
  try {
    return Deno.statSync("/dev/shm").isDirectory ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
})();
// A 1 GB file and its database are not kept in memory (/dev/shm) for the memory run.
const dir = Deno.makeTempDirSync({
  prefix: "vitrine-bench-import-",
  dir: memoryOnly ? undefined : shm,
});

/** Writes the CSV: id, a quoted name, a real, a city, an ISO date; returns its row count. */
async function writeCsv(path: string, bytes: number): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  await file.write(encoder.encode("id,name,value,city,day\n"));
  let written = 0;
  let rows = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++, rows++) {
      lines.push(
        `${rows},"Name ${rows}, Jr.",${(rows * 0.37).toFixed(2)},City ${rows % 97},` +
          `2024-${String(rows % 12 + 1).padStart(2, "0")}-${
            String(rows % 28 + 1).padStart(2, "0")
          }`,
      );
    }
    const chunk = encoder.encode(lines.join("\n") + "\n");
    await file.write(chunk);
    written += chunk.length;
  }
  file.close();
  return rows;
}

/**
 * Runs a command; returns its wall time and CPU time (user + system, as last sampled, every
 * 20 ms, before it ended) in seconds, and its peak VmRSS and RssAnon in MiB.
 */
async function timed(
  cmd: string,
  args: string[],
): Promise<{ seconds: number; cpu: number; anonMiB: number; rssMiB: number }> {
  const started = performance.now();
  const child = new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).spawn();
  const sampler = rssSampler(child.pid, 20);
  let cpu = 0;
  const cpuTimer = setInterval(() => {
    try {
      cpu = cpuMs(child.pid);
    } catch { /* ended */ }
  }, 20);
  const { code, stderr } = await child.output();
  sampler.stop();
  clearInterval(cpuTimer);
  if (code !== 0) throw new Error(`${cmd} failed: ${new TextDecoder().decode(stderr)}`);
  return {
    seconds: (performance.now() - started) / 1000,
    cpu: cpu / 1000,
    anonMiB: Math.round(sampler.privatePeak() / 1024 / 1024),
    rssMiB: Math.round(sampler.peak() / 1024 / 1024),
  };
}

const csv = `${dir}/data.csv`;
const rows = await writeCsv(csv, MB * 1024 * 1024);
const loadBefore = loadAverage();
const size = Deno.statSync(csv).size;
console.log(`CSV: ${rows.toLocaleString("en")} rows, ${(size / 1024 / 1024).toFixed(0)} MB`);

if (memoryOnly) {
  try {
    const run = await timed(Deno.execPath(), [
      "run",
      "-A",
      CLI,
      "insert",
      `${dir}/memory.db`,
      "t",
      csv,
      "--silent",
    ]);
    console.log(
      `${"".padEnd(34)} ${"time".padStart(9)} ${"rows/s".padStart(11)} ` +
        `${"peak VmRSS".padStart(11)} ${"peak RssAnon".padStart(13)}`,
    );
    console.log(
      `${"vitrine insert (plain command)".padEnd(34)} ${run.seconds.toFixed(1).padStart(7)} s ` +
        `${Math.round(rows / run.seconds).toLocaleString("en").padStart(11)} ` +
        `${String(run.rssMiB).padStart(7)} MiB ${String(run.anonMiB).padStart(9)} MiB` +
        `   (target: RssAnon < 150 MiB)`,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  Deno.exit(0);
}

type Best = { seconds: number; cpu: number };
const best: Record<"sqlite" | "vitrine" | "installed" | "typesOff", Best> = {
  sqlite: { seconds: Infinity, cpu: Infinity },
  vitrine: { seconds: Infinity, cpu: Infinity },
  installed: { seconds: Infinity, cpu: Infinity },
  typesOff: { seconds: Infinity, cpu: Infinity },
};
const keep = (which: keyof typeof best, run: Best) => {
  best[which] = {
    seconds: Math.min(best[which].seconds, run.seconds),
    cpu: Math.min(best[which].cpu, run.cpu),
  };
};
let anon = 0;
for (let round = 0; round < rounds; round++) {
  const a = `${dir}/sqlite${round}.db`;
  keep("sqlite", await timed("sqlite3", [a, `.import --csv ${csv} t`]));
  const b = `${dir}/vitrine${round}.db`;
  const run = await timed(Deno.execPath(), ["run", "-A", CLI, "insert", b, "t", csv, "--silent"]);
  keep("vitrine", run);
  anon = Math.max(anon, run.anonMiB);
  const c = `${dir}/text${round}.db`;
  keep(
    "typesOff",
    await timed(Deno.execPath(), [
      "run",
      "-A",
      CLI,
      "insert",
      c,
      "t",
      csv,
      "--silent",
      "--no-detect-types",
    ]),
  );
  // As the installed `vitrine` command runs (README): with the V8 flags given, so the command
  // does not start Deno a second time to have them.
  const d = `${dir}/installed${round}.db`;
  const installed = await timed(Deno.execPath(), [
    "run",
    "-A",
    V8_FLAGS_OPTION,
    CLI,
    "insert",
    d,
    "t",
    csv,
    "--silent",
  ]);
  keep("installed", installed);
  anon = Math.max(anon, installed.anonMiB);
  for (const path of [a, b, c, d]) Deno.removeSync(path);
}
Deno.removeSync(dir, { recursive: true });

// Wall time is what the target is about; CPU time (all threads) says how much work each did,
// which a loaded machine blurs less.
const line = (name: string, { seconds, cpu }: Best) =>
  `${name.padEnd(36)} ${seconds.toFixed(2).padStart(7)} s ${
    Math.round(rows / seconds).toLocaleString("en").padStart(9)
  } ${(best.sqlite.seconds / seconds).toFixed(2).padStart(6)}x ${cpu.toFixed(2).padStart(7)} s ${
    (best.sqlite.cpu / cpu).toFixed(2).padStart(6)
  }x`;
console.log(
  `${"".padEnd(36)} ${"wall".padStart(9)} ${"rows/s".padStart(9)} ${"ratio".padStart(7)} ` +
    `${"CPU".padStart(9)} ${"ratio".padStart(7)}`,
);
console.log(line("sqlite3 -csv .import (floor, text)", best.sqlite));
console.log(line("vitrine insert (types inferred)", best.vitrine));
console.log(line("  installed (V8 flags given)", best.installed));
console.log(line("vitrine insert --no-detect-types", best.typesOff));
console.log(`vitrine insert peak RssAnon: ${anon} MiB (target < 150 MiB for any file size)`);
console.log(
  `best of ${rounds} runs each; load average ${loadBefore} before, ${loadAverage()} after`,
);
