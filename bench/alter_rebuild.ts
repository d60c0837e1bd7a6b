/**
 * Time of an alter that rebuilds a table (`POST /<db>/<table>/-/alter` changing a column's type)
 * on a table of N rows (default 1,000,000) with an index and a trigger, against a floor measured
 * in the same run: the same rebuild written by hand with the SQLite binding (create, copy, drop,
 * rename, re-index in one transaction), which is what the alter cannot do faster than. Each path
 * works on its own copy of the same file. Run: `deno run -A bench/alter_rebuild.ts [rows]`.
 */

import { Connection } from "../src/sqlite/connection.ts";
import { Service } from "../src/service.ts";

const ROWS = Number(Deno.args[0] ?? 1_000_000);
const shm = (() => {
  try {
    return Deno.statSync("/dev/shm").isDirectory ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
})();
const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-alter-", dir: shm });

function build(): string {
  const path = `${dir}/source.db`;
  const conn = Connection.open(path);
  conn.exec(`
    create table readings (id integer primary key, sensor text, value text, n integer);
    create table log (reading integer, at text);
    create trigger readings_log after update on readings begin
      insert into log values (new.id, datetime());
    end;`);
  conn.exec("BEGIN");
  const insert = conn.prepare("insert into readings (sensor, value, n) values (?, ?, ?)");
  for (let i = 0; i < ROWS; i++) {
    insert.bind([`sensor ${i % 97}`, String((i * 7) % 1000), i]);
    while (insert.step()) { /* no rows */ }
  }
  insert.finalize();
  conn.exec("create index readings_sensor on readings(sensor)");
  conn.exec("COMMIT");
  conn.close();
  return path;
}

const source = build();
let copies = 0;
function copy(): string {
  const path = `${dir}/copy${copies++}.db`;
  Deno.copyFileSync(source, path);
  return path;
}

function byHand(): number {
  const conn = Connection.open(copy());
  const start = performance.now();
  conn.exec(`
    PRAGMA foreign_keys = OFF;
    BEGIN IMMEDIATE;
    CREATE TABLE new_readings (id INTEGER PRIMARY KEY, sensor TEXT, value INTEGER, n INTEGER);
    INSERT INTO new_readings (id, sensor, value, n) SELECT id, sensor, value, n FROM readings;
    DROP TABLE readings;
    ALTER TABLE new_readings RENAME TO readings;
    CREATE INDEX readings_sensor on readings(sensor);
    CREATE TRIGGER readings_log after update on readings begin
      insert into log values (new.id, datetime());
    end;
    PRAGMA foreign_key_check;
    COMMIT;`);
  const ms = performance.now() - start;
  conn.close();
  return ms;
}

async function throughApi(): Promise<number> {
  const path = copy();
  const name = path.split("/").pop()!.replace(/\.db$/, "");
  await using svc = new Service({
    files: [path],
    secret: "bench",
    metadata: { databases: { [name]: { permissions: { "alter-table": true } } } },
  });
  const start = performance.now();
  const response = await svc.client.post(`/${name}/readings/-/alter`, {
    body: JSON.stringify({
      operations: [{ op: "alter_column", args: { name: "value", type: "integer" } }],
    }),
    headers: { "content-type": "application/json" },
  });
  const ms = performance.now() - start;
  if (response.status !== 200) throw new Error(`alter: ${response.status} ${response.text}`);
  return ms;
}

try {
  const floor = byHand();
  const api = await throughApi();
  console.log(`rebuild of a ${ROWS.toLocaleString("en")}-row table (index + trigger kept)`);
  console.log("path                         ms   ratio");
  console.log(`SQLite binding by hand  ${floor.toFixed(0).padStart(8)}    1.00`);
  console.log(
    `POST /-/alter           ${api.toFixed(0).padStart(8)} ${(api / floor).toFixed(2).padStart(7)}`,
  );
} finally {
  Deno.removeSync(dir, { recursive: true });
}
