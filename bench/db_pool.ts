/**
 * Prints the cost of a 100-row page through the read pool at concurrency 1 and 4, and on the
 * main thread for comparison. Run: `deno run -A bench/db_pool.ts`.
 */

import { Database } from "../src/db/database.ts";
import { standaloneHost } from "../src/db/host.ts";
import { Connection } from "../src/sqlite/connection.ts";

const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-" });
const path = `${dir}/bench.db`;
const setup = Connection.open(path);
setup.exec(`create table items (id integer primary key, name text, score real, n integer);
  insert into items (name, score, n)
    with recursive s(v) as (select 1 union all select v + 1 from s where v < 20000)
    select 'item ' || v, v * 0.5, v * 7 from s;`);
setup.close();

async function measure(threads: number, concurrency: number, queries = 2000): Promise<number> {
  const host = standaloneHost({ settings: { num_sql_threads: threads } });
  const db = new Database(host, { path, is_mutable: false });
  let next = 0;
  const page = () =>
    db.execute("select * from items where id > ? order by id limit 100", [next++ % 19000]);
  for (let i = 0; i < 200; i++) await page(); // warm up workers and caches
  next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < queries) await page();
  }));
  const elapsed = performance.now() - start;
  db.close();
  host.close();
  return (elapsed * 1000) / queries;
}

for (const [threads, concurrency] of [[0, 1], [2, 1], [2, 4], [3, 4]]) {
  const us = await measure(threads, concurrency);
  console.log(
    `threads=${threads} concurrency=${concurrency}: ${us.toFixed(0)} µs per 100-row page`,
  );
}
Deno.removeSync(dir, { recursive: true });
