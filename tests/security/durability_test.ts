/**
 * Durability under kill -9: a server process is killed with SIGKILL during 200 writes, 50 in
 * flight — writable canned queries (one row, or three rows in one statement) and the JSON write
 * API (`/-/insert` of three rows). After a restart every write that was answered with success is
 * present, no three-row batch is half there, and `PRAGMA integrity_check` is ok — for a file in
 * the default rollback-journal mode and one in WAL mode.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { startServer } from "./server_process.ts";

const WRITES = 200;
const IN_FLIGHT = 50;

const METADATA = {
  databases: {
    durable: {
      queries: {
        add_entry: {
          sql: "insert into entries (writer, n) values (:writer, :n)",
          write: true,
        },
        // One statement writing three rows: all of them or none.
        add_batch: {
          sql: "insert into batch_rows (batch, k) " +
            "select :batch, value from json_each('[1, 2, 3]')",
          write: true,
        },
      },
      tables: { api_rows: { permissions: { "insert-row": true } } },
    },
  },
};

function createDatabase(path: string, journalMode: "delete" | "wal"): void {
  using conn = Connection.open(path);
  conn.exec(`pragma journal_mode = ${journalMode}`);
  conn.exec(
    "create table entries (id integer primary key, writer text unique, n integer); " +
      "create table batch_rows (batch text, k integer, primary key (batch, k)); " +
      "create table api_rows (batch text, k integer, primary key (batch, k));",
  );
}

/** The three kinds of write: canned one-row, canned three-row, write API three-row. */
function writeFor(i: number): { key: string; path: string; body: unknown; status: number } {
  switch (i % 3) {
    case 0:
      return {
        key: `w${i}`,
        path: "durable/add_entry.json",
        body: { writer: `w${i}`, n: i },
        status: 200,
      };
    case 1:
      return {
        key: `b${i}`,
        path: "durable/add_batch.json",
        body: { batch: `b${i}` },
        status: 200,
      };
    default:
      return {
        key: `a${i}`,
        path: "durable/api_rows/-/insert",
        body: { rows: [1, 2, 3].map((k) => ({ batch: `a${i}`, k })) },
        status: 201,
      };
  }
}

/** POSTs one write; resolves to its key when the server answered ok, else null. */
async function write(url: string, i: number): Promise<string | null> {
  const { key, path, body, status } = writeFor(i);
  try {
    const response = await fetch(url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    return response.status === status && answer.ok === true ? key : null;
  } catch {
    return null; // the connection died with the server: not acknowledged
  }
}

/** `batch → number of rows` for one of the batch tables, read through the restarted server. */
async function batchSizes(url: string, table: string): Promise<Map<string, number>> {
  const sql = `select batch, count(*) from ${table} group by batch`;
  const answer = await (await fetch(
    `${url}durable.json?sql=${encodeURIComponent(sql)}&_shape=arrays&_size=max`,
  )).json();
  return new Map(answer.rows.map((row: [string, number]) => [row[0], row[1]]));
}

async function killDuringWrites(dir: string, journalMode: "delete" | "wal"): Promise<void> {
  const db = `${dir}/durable.db`;
  createDatabase(db, journalMode);
  Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify(METADATA));
  const args = [db, "-m", `${dir}/metadata.json`];
  // Vitrine switches a file to WAL on its first write unless told not to (wal_mode).
  if (journalMode === "delete") args.push("-s", "wal_mode", "off");
  const server = await startServer(args);
  // One write of each kind first, so that workers and caches are warm when the storm starts.
  const acknowledged: string[] = [];
  for (let i = WRITES; i < WRITES + 3; i++) {
    const key = await write(server.url, i);
    assert.ok(key, `warm-up write ${i} failed`);
    acknowledged.push(key);
  }
  let killed: Promise<void> | null = null;
  // 200 writes, 50 in flight at any moment. (All 200 at once would queue every canned write
  // before the first API call, which looks the table up before it joins the write queue.)
  let next = 0;
  const sender = async () => {
    while (next < WRITES && !killed) {
      const key = await write(server.url, next++);
      if (key === null) continue;
      acknowledged.push(key);
      // Kill once a quarter of the writes are answered, some through each way in.
      const api = acknowledged.filter((key) => key.startsWith("a")).length;
      if (!killed && acknowledged.length >= WRITES / 4 && api >= 5) killed = server.kill();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
  await (killed ?? server.kill());
  assert.ok(acknowledged.length >= WRITES / 4, `only ${acknowledged.length} writes answered`);
  assert.ok(acknowledged.length < WRITES, "the kill came after every write: nothing was tested");
  console.log(`killed with ${acknowledged.length} of ${WRITES + 3} writes answered`);

  // Restart: the start-up check recovers the file; every acknowledged write is served.
  const again = await startServer(args);
  try {
    const entries = await (await fetch(
      `${again.url}durable/entries.json?_shape=arrays&_col=writer&_size=max`,
    )).json();
    const writers = new Set(entries.rows.map((row: unknown[]) => row[1]));
    const canned = await batchSizes(again.url, "batch_rows");
    const api = await batchSizes(again.url, "api_rows");
    assert.ok(acknowledged.some((key) => key.startsWith("a")), "no write API call was answered");
    for (const key of acknowledged) {
      if (key.startsWith("w")) assert.ok(writers.has(key), `acknowledged ${key} is missing`);
      else {
        const sizes = key.startsWith("b") ? canned : api;
        assert.equal(sizes.get(key), 3, `acknowledged batch ${key} is incomplete`);
      }
    }
    for (const [batch, size] of [...canned, ...api]) {
      assert.equal(size, 3, `batch ${batch} is partial`);
    }
  } finally {
    await again.stop();
  }
  using conn = Connection.open(db, { mode: "rw" });
  assert.deepEqual(conn.query("pragma integrity_check").rows, [["ok"]]);
  assert.equal(conn.query("pragma journal_mode").rows[0][0], journalMode);
}

for (const mode of ["delete", "wal"] as const) {
  Deno.test(`kill -9 during 200 writes loses no acknowledged write (journal_mode ${mode})`, async () => {
    const dir = Deno.makeTempDirSync({ prefix: "vitrine-kill-" });
    try {
      await killDuringWrites(dir, mode);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
}
