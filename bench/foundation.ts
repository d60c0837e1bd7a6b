/**
 * The data layer's headline numbers (issue "Foundation"):
 *
 * 1. rows/s reading a 500k-row table through our FFI binding, against Deno's built-in
 *    `node:sqlite` (arrays mode) as the ceiling;
 * 2. round-trip cost of a 1-row and a 100-row query through the read-worker pool;
 * 3. how long a fast query waits while a runaway query holds another worker.
 *
 *   deno run -A bench/foundation.ts
 */
import { DatabaseSync } from "node:sqlite";
import { Connection } from "../src/sqlite/mod.ts";
import { Database } from "../src/db/database.ts";
import { standaloneHost } from "../src/db/host.ts";

const ROWS = 500_000;
const dir = Deno.makeTempDirSync({ prefix: "vitrine-foundation-" });
const path = `${dir}/bench.db`;

const setup = Connection.open(path, { mode: "rwc" });
setup.exec("create table items (id integer primary key, name text, score real, n integer); begin;");
const insert = setup.prepare("insert into items values (?, ?, ?, ?)");
for (let i = 1; i <= ROWS; i++) insert.bind([i, `item number ${i}`, i / 3, i * 7]).step();
insert.finalize();
setup.exec("commit");
setup.close();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// 1. Full scans. The two readers alternate run by run, after one warm-up run each, so that JIT
// warm-up, GC of the previous run's 500k rows and the machine's load swings hit both alike
// (timing one reader's five runs and then the other's made the ratio swing 0.6–1.0x).
const RUNS = 7;
const ours = Connection.open(path, { mode: "ro" });
const builtin = new DatabaseSync(path, { readOnly: true });
const statement = builtin.prepare("select * from items");
// Deno's bundled node:sqlite has setReturnArrays; its type declarations do not yet.
(statement as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true);
const readers: [string, () => unknown][] = [
  ["vitrine FFI", () => ours.query("select * from items")],
  ["node:sqlite", () => statement.all()],
];
const samples = new Map<string, number[]>(readers.map(([name]) => [name, []]));
for (let run = 0; run <= RUNS; run++) {
  for (const [name, read] of readers) {
    const start = performance.now();
    read();
    if (run > 0) samples.get(name)!.push(performance.now() - start);
  }
}
ours.close();
builtin.close();
const oursMs = median(samples.get("vitrine FFI")!);
const builtinMs = median(samples.get("node:sqlite")!);
console.log(`full scan of ${ROWS} rows (median of ${RUNS}, alternating, after a warm-up):`);
for (const [name, runs] of samples) {
  const ms = median(runs);
  console.log(
    `  ${name.padEnd(14)} ${ms.toFixed(0)} ms (min ${Math.min(...runs).toFixed(0)})  ${
      (ROWS / ms / 1000).toFixed(2)
    } M rows/s`,
  );
}
console.log(
  `  ratio           ${(builtinMs / oursMs).toFixed(2)}x of the built-in's speed (target ≥ 0.7x)`,
);

// 2. Round trips through the pool.
const host = standaloneHost({ settings: { num_sql_threads: 2 } });
const db = new Database(host, { path, is_mutable: false });
async function perQuery(sql: (i: number) => string, n: number, concurrency: number) {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await db.execute(sql(next++));
  }));
  return ((performance.now() - start) * 1000) / n;
}
await perQuery((i) => `select ${i}`, 200, 2); // warm the workers
for (const concurrency of [1, 4]) {
  const one = await perQuery(
    (i) => `select name from items where id = ${1 + i}`,
    2000,
    concurrency,
  );
  const hundred = await perQuery(
    (i) => `select * from items where id > ${i * 100} order by id limit 100`,
    2000,
    concurrency,
  );
  console.log(
    `pool, concurrency ${concurrency}: 1-row ${one.toFixed(0)} µs/query, 100-row ${
      hundred.toFixed(0)
    } µs/query`,
  );
}

// 3. A fast query while a runaway one holds a worker until its 1 s limit.
const runaway = db.execute(
  "with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r",
  [],
  { custom_time_limit: 1000 },
).catch((error) => error.name);
await new Promise((resolve) => setTimeout(resolve, 50));
const fastStart = performance.now();
await db.execute("select count(*) from items where id < 10");
const fastMs = performance.now() - fastStart;
console.log(`fast query during a runaway query: answered in ${fastMs.toFixed(1)} ms`);
console.log(`runaway query ended with: ${await runaway}`);

db.close();
host.close();
Deno.removeSync(dir, { recursive: true });
