/**
 * Idle read workers give their memory back: spares and all base workers but one stop, and close
 * their SQLite connections before they do; the last one releases what it holds and stays.
 */
import assert from "node:assert/strict";
import { ReadPool } from "../../src/db/pool.ts";
import type { ReadRequest } from "../../src/db/read_query.ts";
import type { ReadTarget } from "../../src/db/read_target.ts";
import { makeDbFile, tempDir } from "./helpers.ts";

// Open files are counted in /proc/self/fd.
const ignore = Deno.build.os !== "linux";

/** A query that keeps a worker busy for a moment (tens of milliseconds). */
const BUSY = "select count(*) from (with recursive c(x) as (select 1 union all " +
  "select x + 1 from c where x < 400000) select x from c)";
const ENDLESS =
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c";

function request(sql: string): ReadRequest {
  return { sql, params: null, maxRows: null, timeLimitMs: null, deadline: null };
}

function fileTarget(path: string): ReadTarget {
  return { name: "idle", path, immutable: false, memoryName: null, attach: [] };
}

/** How many descriptors this process holds open on `path` (each SQLite connection holds one). */
function openDescriptors(path: string): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === path) count++;
    } catch { /* closed meanwhile */ }
  }
  return count;
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    assert.ok(performance.now() < deadline, `still waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function withFile(fn: (path: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = makeDbFile(
        Deno.realPathSync(dir),
        "idle.db",
        "create table t (x); insert into t values (42);",
      );
      await fn(path);
    } finally {
      cleanup();
    }
  };
}

Deno.test(
  "idle base workers beyond the first stop, closing their connections; the last one stays",
  { ignore },
  withFile(async (path) => {
    let idle = 0;
    // Long enough that neither stops before the other has answered (booting a worker under load
    // can take a few hundred milliseconds).
    const pool = new ReadPool({ size: 2, spare: 0, baseIdleMs: 1000, onIdle: () => idle++ });
    try {
      // Two at once: each base worker opens its own connection to the file.
      await Promise.all([1, 2].map(() => pool.run(fileTarget(path), request(BUSY))));
      assert.equal(pool.threads().length, 2);
      assert.equal(openDescriptors(path), 2);
      await until("one worker left", () => pool.threads().length === 1);
      // Terminating a worker's thread would leave its connection open for the process's life.
      await until("its connection closed", () => openDescriptors(path) === 1);
      await until("the last worker released its memory", () => idle === 1);
      // Released, not closed: the remaining worker answers on the connection it kept.
      const answer = await pool.run(fileTarget(path), request("select x from t"));
      assert.deepEqual(answer.rows(), [[42]]);
      assert.equal(openDescriptors(path), 1);
      assert.equal(pool.threads().length, 1);
      // Once per idle time after work, not over and over.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(idle, 2, "the query above made it release once more, and only once");
    } finally {
      pool.close();
    }
  }),
);

Deno.test(
  "a query that comes while the last worker releases its memory waits for it, starting no other",
  withFile(async (path) => {
    const baseIdleMs = 200;
    let idle = 0;
    const pool = new ReadPool({ size: 2, spare: 0, baseIdleMs, onIdle: () => idle++ });
    try {
      await pool.run(fileTarget(path), request("select x from t"));
      // Set after the pool's own idle timer, with the same delay: it fires once the worker has
      // been asked to release, before it can have answered.
      await new Promise((resolve) => setTimeout(resolve, baseIdleMs));
      assert.equal(idle, 0, "the release is still under way");
      const answer = await pool.run(fileTarget(path), request("select x + 1 from t"));
      assert.deepEqual(answer.rows(), [[43]]);
      assert.equal(idle, 1);
      assert.equal(pool.threads().length, 1, "a second worker was started");
    } finally {
      pool.close();
    }
  }),
);

Deno.test(
  "an idle spare worker stops and closes its connections",
  { ignore },
  withFile(async (path) => {
    const pool = new ReadPool({ size: 1, spare: 1, spareIdleMs: 300, baseIdleMs: 60_000 });
    try {
      // Run once, so known to be short: only such queries are sure of a spare.
      await pool.run(fileTarget(path), request("select x from t"));
      const busy = new AbortController();
      const runaway = pool.run(fileTarget(path), request(ENDLESS), busy.signal).catch((e) => e);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The base worker is stuck, so this short query gets a spare worker.
      const answer = await pool.run(fileTarget(path), request("select x from t"));
      assert.deepEqual(answer.rows(), [[42]]);
      assert.equal(pool.threads().length, 2);
      assert.equal(openDescriptors(path), 2);
      busy.abort();
      assert.match(String(await runaway), /interrupted/);
      await until("the spare stopped", () => pool.threads().length === 1);
      await until("its connection closed", () => openDescriptors(path) === 1);
    } finally {
      pool.close();
    }
  }),
);

Deno.test(
  "the last idle worker, and a connection asked to, give back SQLite's cached pages",
  withFile(async (path) => {
    // SQLite's memory counter is per process (and test files share one): measured in a child.
    const script = new URL("./idle_release_script.ts", import.meta.url);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script.href, path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const { busy, idle, answer, readerBusy, readerIdle, readerAnswer } = JSON.parse(text);
    assert.deepEqual(answer, [[2000]]);
    // The scan filled the worker's page cache (SQLite's default, about 2 MB).
    assert.ok(busy - idle > 1_000_000, `SQLite held ${busy} bytes, then ${idle}`);
    assert.deepEqual(readerAnswer, [[2000]]);
    assert.ok(readerBusy - readerIdle > 1_000_000, `${readerBusy} bytes, then ${readerIdle}`);
  }),
);

Deno.test(
  "closing the pool closes every worker's connections, busy ones too",
  { ignore },
  withFile(async (path) => {
    const pool = new ReadPool({ size: 2, spare: 0 });
    const running = pool.run(fileTarget(path), request(ENDLESS)).catch((error) => error);
    await pool.run(fileTarget(path), request("select x from t"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(openDescriptors(path), 2);
    pool.close();
    assert.match(String(await running), /closed/);
    // The idle worker and the interrupted one close theirs before they are terminated.
    await until("both connections closed", () => openDescriptors(path) === 0);
  }),
);
