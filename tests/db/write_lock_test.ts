/**
 * Writers that share one file (as replicas on one host do): WAL, waiting for another writer's
 * lock without blocking the event loop, giving up with a 503, and every write landing once.
 */
import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { DatabaseBusy } from "../../src/db/write_lock.ts";
import { makeDbFile, tempDir, testHost } from "./helpers.ts";

const SCHEMA = "create table hits (n integer, who text);";

function twoWriters(settings: Record<string, unknown> = {}) {
  const { dir, cleanup } = tempDir();
  const path = makeDbFile(dir, "shared.db", SCHEMA);
  const hosts = [testHost({ settings }), testHost({ settings })];
  const dbs = hosts.map((host) => new Database(host, { path }));
  return {
    path,
    dbs,
    close() {
      for (const db of dbs) db.close();
      for (const host of hosts) host.close();
      cleanup();
    },
  };
}

function countRows(path: string): { n: number; times: number }[] {
  const conn = Connection.open(path, { mode: "ro" });
  try {
    return conn.query("select n, count(*) from hits group by n order by n").rows
      .map(([n, times]) => ({ n: Number(n), times: Number(times) }));
  } finally {
    conn.close();
  }
}

Deno.test("the first write switches the file to WAL; wal_mode off leaves it alone", async () => {
  for (const wal of [true, false]) {
    const { path, dbs, close } = twoWriters({ wal_mode: wal });
    try {
      await dbs[0].execute_write("insert into hits values (1, 'a')");
      const conn = Connection.open(path, { mode: "ro" });
      const mode = conn.query("pragma journal_mode").rows[0][0];
      conn.close();
      assert.equal(mode, wal ? "wal" : "delete");
    } finally {
      close();
    }
  }
});

Deno.test("two writers of one file: 60 interleaved writes all land exactly once", async () => {
  const { path, dbs, close } = twoWriters();
  try {
    await Promise.all(Array.from({ length: 60 }, (_, n) => {
      const db = dbs[n % 2];
      // Three kinds of writes: a statement, many statements, a write function.
      if (n % 3 === 0) return db.execute_write("insert into hits values (?, 'one')", [n]);
      if (n % 3 === 1) return db.execute_write_many("insert into hits values (?, ?)", [[n, "m"]]);
      return db.execute_write_fn((conn) => conn.run("insert into hits values (?, 'fn')", [n]), {
        transaction: true,
      });
    }));
    const rows = countRows(path);
    assert.equal(rows.length, 60);
    assert.ok(rows.every(({ times }) => times === 1));
  } finally {
    close();
  }
});

Deno.test("a write waiting for another process's lock does not block the event loop", async () => {
  const { path, dbs, close } = twoWriters();
  const other = Connection.open(path, { mode: "rw" });
  try {
    await dbs[0].execute_write("insert into hits values (0, 'warm')");
    other.exec("BEGIN IMMEDIATE; insert into hits values (1, 'other')");
    let settled = false;
    const waiting = dbs[1].execute_write("insert into hits values (2, 'waiter')")
      .finally(() => settled = true);
    // Timers keep firing while the write waits: the thread is free.
    let ticks = 0;
    while (ticks < 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      ticks++;
    }
    assert.equal(settled, false, "the write must wait for the other writer");
    other.exec("COMMIT");
    const cursor = await waiting;
    assert.equal(cursor.rowcount, 1);
    assert.deepEqual(countRows(path).map(({ n }) => n), [0, 1, 2]);
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    close();
  }
});

Deno.test("a lock held past write_lock_timeout_ms fails the write with a 503, changing nothing", async () => {
  const { path, dbs, close } = twoWriters({ write_lock_timeout_ms: 150 });
  const other = Connection.open(path, { mode: "rw" });
  try {
    await dbs[0].execute_write("insert into hits values (0, 'warm')");
    other.exec("BEGIN IMMEDIATE");
    const error = await dbs[0].execute_write("insert into hits values (9, 'late')").then(
      () => null,
      (error) => error,
    );
    assert.ok(error instanceof DatabaseBusy, String(error));
    assert.equal(error.status, 503);
    assert.equal(error.headers["retry-after"], "1");
    assert.match(error.message, /write_lock_timeout_ms/);
    other.exec("ROLLBACK");
    assert.deepEqual(countRows(path).map(({ n }) => n), [0]);
    // The queue goes on: the next write succeeds.
    await dbs[0].execute_write("insert into hits values (10, 'after')");
    assert.deepEqual(countRows(path).map(({ n }) => n), [0, 10]);
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    close();
  }
});

Deno.test("a writable canned query on a file locked too long answers 503, not a failed query", async () => {
  const { Service } = await import("../../src/service.ts");
  const { dir, cleanup } = tempDir();
  const path = makeDbFile(dir, "shared.db", SCHEMA);
  await using svc = new Service({
    files: [path],
    settings: { write_lock_timeout_ms: 100 },
    metadata: {
      databases: {
        shared: { queries: { hit: { sql: "insert into hits values (1, 'q')", write: true } } },
      },
    },
  });
  await svc.invoke_startup();
  const other = Connection.open(path, { mode: "rw" });
  try {
    other.exec("BEGIN IMMEDIATE");
    const response = await svc.client.post("/shared/hit", {
      json: {},
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.match(response.json().error, /busy/);
  } finally {
    other.exec("ROLLBACK");
    other.close();
    cleanup();
  }
});
