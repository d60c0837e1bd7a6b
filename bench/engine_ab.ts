/**
 * SQLite pages before and after a change, side by side: two checkouts of Vitrine (this one and
 * `--before=DIR`, e.g. a `git worktree add /work/wt/before <commit>`) each serve the same SQLite
 * file (immutable, default settings) as a process of its own, and `wrk` asks every URL of each
 * kind of page — index, database, table (HTML, JSON, sorted and filtered, faceted, a later page),
 * row, custom SQL (HTML, JSON), CSV — of one server then the other, A/B/A/B…, so the machine's
 * load falls on both alike. The floor of each line is the before checkout: the ratios are
 * after/before requests per second (above 1: faster now) and after/before server CPU per request
 * (below 1: cheaper now; read from /proc, which a shared machine's load disturbs far less).
 *
 *   deno run -A bench/engine_ab.ts --before=/work/wt/before [--rounds=3] [--seconds=3] [--rows=200000]
 *       [--in-process[=10]]
 *
 * `--in-process` measures instead each checkout's CPU per request without HTTP (the requests
 * handed to its `Service`, `bench/lib/checkout_cpu.ts`), a process per checkout in turn, 10 turns
 * each by default, and prints the median of the after/before ratios of each turn: steadier still,
 * as neither wrk nor the HTTP server share the CPU with it.
 *
 * Issue 43 item 3 (the `DatabaseEngine` interface, commit 6337eff as the before) is its first use.
 *
 * @module
 */

import { Connection } from "../src/sqlite/mod.ts";
import { freePort, type ServerProcess, startServer } from "./lib/process.ts";
import { machine, treeCpuMs } from "./lib/proc.ts";
import { fmt } from "./lib/report.ts";
import { wrk } from "./lib/wrk.ts";

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [key, value = "1"] = a.slice(2).split("=");
    return [key, value];
  }),
);
if (!flags.before) throw new Error("--before=DIR: the checkout to compare with");
const ROUNDS = Number(flags.rounds ?? 3);
const SECONDS = Number(flags.seconds ?? 3);
const ROWS = Number(flags.rows ?? 200_000);
const CONNECTIONS = Number(flags.connections ?? 8);
const here = new URL("..", import.meta.url).pathname;

const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-ab-" });
const path = `${dir}/bench.db`;
const conn = Connection.open(path, { mode: "rwc" });
conn.exec(`
  create table wards (id integer primary key, name text);
  with recursive n(i) as (select 1 union all select i + 1 from n where i < 25)
  insert into wards select i, 'ward ' || i from n;
  create table items (id integer primary key, name text, score real, n integer,
    ward integer references wards(id), added text);
  with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
  insert into items select i, 'item ' || i, i / 7.0, i % 97, 1 + i % 25,
    date('2024-01-01', '+' || (i % 365) || ' days') from n;
  create index items_n on items(n);
`);
conn.close();

/** Starts `cli.ts serve` of the checkout at `root` on a free port. */
function start(root: string): Promise<ServerProcess> {
  const port = freePort();
  const serve = ["run", "-A", "cli.ts", "serve", "-i", path, "-p", String(port)];
  return startServer([Deno.execPath(), ...serve], port, "/-/versions.json", 30_000, root);
}

const query = (sql: string) => encodeURIComponent(sql);
const urls: [string, string][] = [
  ["index", "/"],
  ["database", "/bench"],
  ["table HTML", "/bench/items"],
  ["table JSON", "/bench/items.json?_size=100"],
  ["table JSON, later page", `/bench/items.json?_size=100&_next=${Math.floor(ROWS / 2)}`],
  ["table JSON, filter + sort", "/bench/items.json?n=5&_sort_desc=score"],
  ["table JSON, facets", "/bench/items.json?_facet=ward&_facet=n&_size=10"],
  ["table JSON, labels", "/bench/items.json?_labels=on&_size=50"],
  ["row HTML", "/bench/items/12345"],
  ["row JSON", "/bench/items/12345.json"],
  ["query HTML", `/bench/-/query?sql=${query("select * from items where n = 3 limit 100")}`],
  ["query JSON", `/bench/-/query.json?sql=${query("select count(*) from items where n = 3")}`],
  ["table CSV (1,000 rows)", "/bench/items.csv?_size=1000"],
];

console.log(`# SQLite pages: ${flags.before} (A) vs ${here} (B)\n\n${machine()}\n`);
if (flags["in-process"]) {
  await inProcess(Number(flags["in-process"] === "1" ? 10 : flags["in-process"]));
  Deno.removeSync(dir, { recursive: true });
  Deno.exit(0);
}
console.log(
  `${fmt(ROWS)} rows; wrk -c${CONNECTIONS}, ${SECONDS} s per run, ${ROUNDS} rounds A/B per URL\n`,
);
const before = await start(flags.before);
const after = await start(here);
try {
  for (const server of [before, after]) {
    for (const [, url] of urls) {
      const response = await fetch(server.base + url);
      await response.body?.cancel();
      if (response.status !== 200) throw new Error(`${server.base}${url}: ${response.status}`);
    }
  }
  console.log(
    "| page | A req/s | B req/s | B/A req/s | A CPU/req | B CPU/req | B/A CPU | A p50 | B p50 |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const [name, url] of urls) {
    const runs = new Map([before, after].map((server) => [server, {
      rps: [] as number[],
      cpu: [] as number[],
      p50: [] as number[],
      errors: 0,
    }]));
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so neither always follows the other's garbage.
      const order = round % 2 === 0 ? [before, after] : [after, before];
      for (const server of order) {
        const cpu0 = treeCpuMs(server.pid);
        const result = await wrk(server.base + url, { connections: CONNECTIONS, seconds: SECONDS });
        const cpu = treeCpuMs(server.pid) - cpu0;
        const run = runs.get(server)!;
        // A loaded machine can time a page out (a 400 at sql_time_limit_ms): counted, shown.
        run.errors += result.errors;
        run.rps.push(result.rps);
        run.cpu.push((cpu * 1000) / Math.max(1, result.requests));
        run.p50.push(result.p50);
      }
    }
    const [a, b] = [runs.get(before)!, runs.get(after)!];
    const [rpsA, rpsB, cpuA, cpuB] = [median(a.rps), median(b.rps), median(a.cpu), median(b.cpu)];
    console.log(
      `| ${name} | ${fmt(rpsA)} | ${fmt(rpsB)} | ${fmt(rpsB / rpsA, 2)} | ${fmt(cpuA)} µs | ${
        fmt(cpuB)
      } µs | ${fmt(cpuB / cpuA, 2)} | ${fmt(median(a.p50), 2)} ms | ${fmt(median(b.p50), 2)} ms |${
        a.errors + b.errors ? ` errors: ${a.errors} A, ${b.errors} B` : ""
      }`,
    );
  }
  console.log(
    `\nmedians of ${ROUNDS} runs each; load average: ${
      Deno.loadavg().map((n) => fmt(n, 1)).join(" ")
    }`,
  );
} finally {
  await before.stop();
  await after.stop();
  Deno.removeSync(dir, { recursive: true });
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
}

/** `turns` turns of A then B (B then A every other turn), each a process of its own. */
async function inProcess(turns: number): Promise<void> {
  const heavy = (url: string) => /csv|query\?|^\/bench\/items$/.test(url);
  const byCheckout = new Map<string, Record<string, number>[]>([[flags.before, []], [here, []]]);
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? [flags.before, here] : [here, flags.before];
    for (const root of order) {
      const run = async (list: string[], requests: number) => {
        const output = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--config",
            `${root}/deno.json`,
            `${here}bench/lib/checkout_cpu.ts`,
            root,
            path,
            String(requests),
            ...list,
          ],
          stderr: "inherit",
        }).output();
        return JSON.parse(new TextDecoder().decode(output.stdout)) as Record<string, number>;
      };
      const pages = urls.map(([, url]) => url);
      byCheckout.get(root)!.push({
        ...await run(pages.filter((url) => !heavy(url)), 2000),
        ...await run(pages.filter(heavy), 200),
      });
    }
  }
  console.log(`CPU per request in-process, ${turns} turns A/B\n`);
  console.log("| page | A CPU/req | B CPU/req | B/A (median of turns) | B/A lowest–highest |");
  console.log("|---|---:|---:|---:|---:|");
  const [a, b] = [byCheckout.get(flags.before)!, byCheckout.get(here)!];
  for (const [name, url] of urls) {
    const ratios = a.map((turn, i) => b[i][url] / turn[url]);
    console.log(
      `| ${name} | ${fmt(median(a.map((t) => t[url])))} µs | ${
        fmt(median(b.map((t) => t[url])))
      } µs | ${fmt(median(ratios), 2)} | ${fmt(Math.min(...ratios), 2)}–${
        fmt(Math.max(...ratios), 2)
      } |`,
    );
  }
  console.log(`\nload average: ${Deno.loadavg().map((n) => fmt(n, 1)).join(" ")}`);
}
