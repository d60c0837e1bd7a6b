/**
 * What the visitor restrictions cost (src/sqlite/guard.ts): a 500k-row scan read into JS and an
 * in-SQLite aggregate over the same rows, each run plainly and inside `Connection.restricted`
 * (authorizer on, visitor limits set), alternating, fastest of 9; plus the prepare cost of a wide
 * `select *` (the authorizer is called once per column there), the cost of
 * `PRAGMA cell_size_check=ON` (on for every connection), and the noise floor: the same plain
 * scan compared with itself.
 *
 * Run: deno run -A bench/sqlite_guard.ts   (prints figures; never fails)
 */

import { Connection } from "../src/sqlite/mod.ts";
import { VISITOR_LIMITS } from "../src/sqlite/guard.ts";

const ROWS = 500_000;
const LIMITS = { ...VISITOR_LIMITS, length: 10_485_760 };

function time(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/**
 * Runs `plain` and `restricted` alternately `n` times, swapping which goes first each round (the
 * second of a pair tends to run faster here); the fastest run of each, in ms — on a shared
 * machine the minimum is the figure least disturbed by other processes.
 */
function compare(n: number, plain: () => unknown, restricted: () => unknown): [number, number] {
  const a: number[] = [];
  const b: number[] = [];
  plain();
  restricted();
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      a.push(time(plain));
      b.push(time(restricted));
    } else {
      b.push(time(restricted));
      a.push(time(plain));
    }
  }
  return [Math.min(...a), Math.min(...b)];
}

function row(label: string, [plain, guarded]: [number, number], unit = "ms"): void {
  const ratio = guarded / plain;
  console.log(
    `${label.padEnd(46)} | ${plain.toFixed(3).padStart(9)} | ${guarded.toFixed(3).padStart(9)} | ` +
      `${ratio.toFixed(3)}x (${unit})`,
  );
}

const dir = await Deno.makeTempDir({ prefix: "vitrine_bench_" });
try {
  const path = `${dir}/bench.db`;
  {
    using conn = Connection.open(path);
    const wide = Array.from({ length: 200 }, (_, i) => `c${i}`).join(", ");
    conn.exec(`
      create table items (id integer primary key, name text, score real, n integer);
      with recursive c(x) as (select 1 union all select x + 1 from c limit ${ROWS})
      insert into items select x, 'name ' || x, x * 0.5, x * 7 from c;
      create table wide (${wide});
    `);
  }
  using conn = Connection.open(path, { immutable: true });
  const scan = "select id, name, score, n from items";
  const aggregate = "select count(*), sum(n), max(name) from items where name like '%99%'";
  console.log(`${"".padEnd(46)} |     plain |  guarded | ratio`);
  row(
    `noise floor: the plain scan against itself`,
    compare(9, () => conn.query(scan), () => conn.query(scan)),
  );
  row(
    `scan of ${ROWS} rows into JS`,
    compare(
      9,
      () => conn.query(scan),
      () => conn.restricted(() => conn.query(scan), LIMITS),
    ),
  );
  row(
    `aggregate over ${ROWS} rows inside SQLite`,
    compare(
      9,
      () => conn.query(aggregate),
      () => conn.restricted(() => conn.query(aggregate), LIMITS),
    ),
  );
  const preparePlain = () => {
    for (let i = 0; i < 200; i++) conn.query(`select * from wide where c0 = ${i}`);
  };
  const prepareGuarded = () => {
    for (let i = 0; i < 200; i++) {
      conn.restricted(() => conn.query(`select * from wide where c0 = ${i}`), LIMITS);
    }
  };
  const [p, g] = compare(9, preparePlain, prepareGuarded);
  row("prepare + run `select *` of 200 columns", [p * 5, g * 5], "µs per query");

  using unchecked = Connection.open(path, { immutable: true });
  unchecked.exec("pragma cell_size_check = off");
  row(
    `scan of ${ROWS} rows, cell_size_check off/on`,
    compare(9, () => unchecked.query(scan), () => conn.query(scan)),
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
