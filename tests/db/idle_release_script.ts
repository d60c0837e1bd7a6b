/**
 * Run by pool_idle_test.ts in a process of its own, since SQLite counts its memory per process:
 * fills a read worker's page cache, lets the pool go idle, then does the same with a connection
 * of this thread, and prints SQLite's memory in use before and after each, as JSON.
 *
 * @module
 */
import { Connection } from "../../src/sqlite/connection.ts";
import { sqliteMemoryUsed } from "../../src/sqlite/guard.ts";
import { ReadPool } from "../../src/db/pool.ts";
import type { ReadRequest } from "../../src/db/read_query.ts";
import type { ReadTarget } from "../../src/db/read_target.ts";

const path = Deno.args[0];
const writer = Connection.open(path);
// 2,000 rows of 4 KB: 8 MB of pages, more than the page cache keeps.
writer.exec("create table docs (body blob)");
writer.exec(
  "insert into docs select randomblob(4000) from " +
    "(with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) select x from c)",
);
writer.close();

const target: ReadTarget = { name: "docs", path, immutable: true, memoryName: null, attach: [] };
const scan: ReadRequest = {
  sql: "select count(length(body)) from docs",
  params: null,
  maxRows: null,
  timeLimitMs: null,
  deadline: null,
};
let released!: () => void;
const idleSeen = new Promise<void>((resolve) => released = resolve);
const pool = new ReadPool({ size: 1, spare: 0, baseIdleMs: 200, onIdle: () => released() });
await pool.run(target, scan);
const busy = sqliteMemoryUsed();
await idleSeen;
const idle = sqliteMemoryUsed();
// Still serving after it let go of its pages.
const answer = (await pool.run(target, scan)).rows();
pool.close();

// The same for a connection of this thread (the service's main-thread reads).
const reader = Connection.open(path, { mode: "ro", immutable: true });
reader.query(scan.sql);
const readerBusy = sqliteMemoryUsed();
reader.releaseMemory();
const readerIdle = sqliteMemoryUsed();
const readerAnswer = reader.query(scan.sql).rows;
reader.close();
console.log(JSON.stringify({ busy, idle, answer, readerBusy, readerIdle, readerAnswer }));
