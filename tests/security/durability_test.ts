/**
 * Durability under kill -9: a server process is killed with SIGKILL while 200 writes through
 * writable canned queries are in flight. After a restart every write that was answered with
 * success is present, no three-row batch is half there, and `PRAGMA integrity_check` is ok —
 * for a file in the default rollback-journal mode and one in WAL mode.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { startServer } from "./server_process.ts";

const WRITES = 200;

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
    },
  },
};

function createDatabase(path: string, journalMode: "delete" | "wal"): void {
  using conn = Connection.open(path);
  conn.exec(`pragma journal_mode = ${journalMode}`);
  conn.exec(
    "create table entries (id integer primary key, writer text unique, n integer); " +
      "create table batch_rows (batch text, k integer, primary key (batch, k));",
  );
}

/** POSTs one write; resolves to its key when the server answered ok, else null. */
async function write(url: string, i: number): Promise<string | null> {
  const batch = i % 2 === 1;
  const key = `${batch ? "b" : "w"}${i}`;
  const path = batch ? "durable/add_batch.json" : "durable/add_entry.json";
  const body = batch ? { batch: key } : { writer: key, n: i };
  try {
    const response = await fetch(url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    return response.status === 200 && answer.ok === true ? key : null;
  } catch {
    return null; // the connection died with the server: not acknowledged
  }
}

async function killDuringWrites(dir: string, journalMode: "delete" | "wal"): Promise<void> {
  const db = `${dir}/durable.db`;
  createDatabase(db, journalMode);
  Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify(METADATA));
  const args = [db, "-m", `${dir}/metadata.json`];
  const server = await startServer(args);
  const acknowledged: string[] = [];
  let killed: Promise<void> | null = null;
  await Promise.all(
    Array.from({ length: WRITES }, async (_, i) => {
      const key = await write(server.url, i);
      if (key === null) return;
      acknowledged.push(key);
      // Kill once a quarter of the writes are answered, with the rest in flight or queued.
      if (acknowledged.length === WRITES / 4) killed = server.kill();
    }),
  );
  await (killed ?? server.kill());
  assert.ok(acknowledged.length >= WRITES / 4, `only ${acknowledged.length} writes answered`);
  assert.ok(acknowledged.length < WRITES, "the kill came after every write: nothing was tested");

  // Restart: the start-up check recovers the file; every acknowledged write is served.
  const again = await startServer(args);
  try {
    const entries = await (await fetch(
      `${again.url}durable/entries.json?_shape=arrays&_col=writer&_size=max`,
    )).json();
    const writers = new Set(entries.rows.map((row: unknown[]) => row[1]));
    const batches = await (await fetch(
      `${again.url}durable.json?sql=${
        encodeURIComponent("select batch, count(*) from batch_rows group by batch")
      }&_shape=arrays`,
    )).json();
    const batchSizes = new Map<string, number>(
      batches.rows.map((row: [string, number]) => [row[0], row[1]]),
    );
    for (const key of acknowledged) {
      if (key.startsWith("w")) assert.ok(writers.has(key), `acknowledged ${key} is missing`);
      else assert.equal(batchSizes.get(key), 3, `acknowledged batch ${key} is incomplete`);
    }
    for (const [batch, size] of batchSizes) assert.equal(size, 3, `batch ${batch} is partial`);
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
