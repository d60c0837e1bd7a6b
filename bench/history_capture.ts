/**
 * What the history's capture (`src/db/history/capture.ts`) costs per row inserted: the same
 * INSERT … SELECT of rows of 4 columns into an in-memory database, alone (the floor), watched by
 * the capture and summed up into records, into a table that existed before the write, and into one
 * the same write created (an upload's first part). CPU time of this thread per row, best of the
 * rounds, interleaved. Writing the records (`store.ts`) is not included: bench/write_api.ts
 * measures the whole write.
 *
 * Run: `deno run -A bench/history_capture.ts [rows] [rounds]` (default 20,000 rows, 5 rounds).
 */

import { Connection } from "../src/sqlite/connection.ts";
import { ChangeCapture } from "../src/db/history/capture.ts";
import { preupdateAvailable } from "../src/sqlite/preupdate.ts";
import { threadCpuMs } from "../src/util/thread_clock.ts";

const ROWS = Number(Deno.args[0] ?? 20_000);
const ROUNDS = Number(Deno.args[1] ?? 5);
const CREATE = "create table t (id integer primary key, name text, amount real, n integer)";
const INSERT = `insert into t (name, amount, n)
  with recursive k(i) as (select 1 union all select i + 1 from k where i < ${ROWS})
  select 'name ' || i, i / 4.0, i from k`;

/** µs of CPU per row of one write; `capture` watches it, `created` makes the table in it. */
function write(capture: boolean, created: boolean): number {
  using conn = Connection.open(":memory:");
  if (!created) conn.exec(CREATE);
  conn.exec("begin");
  const start = threadCpuMs();
  const watch = capture ? ChangeCapture.start(conn) : null;
  if (created) conn.exec(CREATE);
  conn.exec(INSERT);
  const records = watch?.finish(conn);
  const ms = threadCpuMs() - start;
  conn.exec("commit");
  if (capture && records?.length !== ROWS) throw new Error(`${records?.length} records`);
  return ms * 1000 / ROWS;
}

const paths: [string, () => number][] = [
  ["insert alone (floor)", () => write(false, true)],
  ["captured, table existed", () => write(true, false)],
  ["captured, table created", () => write(true, true)],
];
if (!preupdateAvailable()) {
  console.log("This SQLite library has no preupdate hook: nothing is captured");
  Deno.exit(1);
}
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, run] of paths) best.set(label, Math.min(best.get(label) ?? Infinity, run()));
}
const floor = best.get(paths[0][0])!;
console.log(`${ROWS.toLocaleString("en")} rows of 4 columns, best of ${ROUNDS}, CPU per row`);
for (const [label] of paths) {
  const cpu = best.get(label)!;
  console.log(`${label.padEnd(26)} ${cpu.toFixed(2).padStart(6)} µs  ${(cpu / floor).toFixed(1)}x`);
}
