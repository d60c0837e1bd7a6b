/**
 * Read-path benchmark for the FFI binding: a 200k-row full scan and a 100-row keyset page
 * (prepare + read + finalize, a different SQL text each time, as the table view does).
 *
 * Run: deno run -A bench/sqlite_read.ts
 */

import { Connection } from "../src/sqlite/mod.ts";

const ROWS = 200_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function buildDatabase(path: string): void {
  const conn = Connection.open(path);
  conn.exec(`
    create table items (id integer primary key, name text, score real, n integer);
    with recursive c(x) as (select 1 union all select x + 1 from c limit ${ROWS})
    insert into items select x, 'name ' || x, x * 0.5, x * 7 from c;
  `);
  conn.close();
}

function fullScan(conn: Connection): { runs: number[]; rows: number } {
  const runs: number[] = [];
  let rows = 0;
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    rows = conn.query("select id, name, score, n from items").rows.length;
    runs.push(performance.now() - start);
  }
  return { runs, rows };
}

function keysetPages(conn: Connection, count: number): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const after = (i * 97) % (ROWS - 200);
    conn.query(`select id, name, score, n from items where id > ${after} order by id limit 100`);
  }
  return ((performance.now() - start) / count) * 1000;
}

const dir = await Deno.makeTempDir({ prefix: "vitrine_bench_" });
try {
  const path = `${dir}/bench.db`;
  buildDatabase(path);
  const conn = Connection.open(path, { immutable: true });
  const scan = fullScan(conn);
  console.log(
    `full scan of ${scan.rows} rows: median ${median(scan.runs).toFixed(1)} ms, ` +
      `min ${Math.min(...scan.runs).toFixed(1)} ms, ` +
      `${(scan.rows / median(scan.runs) / 1000).toFixed(2)}M rows/s`,
  );
  keysetPages(conn, 200); // warm up
  const pages = [keysetPages(conn, 2000), keysetPages(conn, 2000), keysetPages(conn, 2000)];
  console.log(`100-row keyset page (prepare+read+finalize): median ${median(pages).toFixed(1)} µs`);
  conn.setDeadline(60_000);
  const withDeadline = fullScan(conn);
  conn.setDeadline(null);
  console.log(
    `full scan with a deadline handler: median ${median(withDeadline.runs).toFixed(1)} ms`,
  );
  conn.close();
} finally {
  await Deno.remove(dir, { recursive: true });
}
