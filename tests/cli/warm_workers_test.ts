/**
 * `vitrine serve` has its read workers open their connections before it listens
 * (`src/cli/warm_workers.ts`): one query per base worker on each database file served, none on
 * memory databases.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { warmReadWorkers } from "../../src/cli/warm_workers.ts";
import { makeDbFile, tempDir } from "../db/helpers.ts";

Deno.test("warming runs one query per base worker on each database file, before any request", async () => {
  const { dir, cleanup } = tempDir();
  const path = makeDbFile(dir, "warm.db", "create table t (id integer primary key)");
  await using svc = new Service({
    files: [path],
    settings: { num_sql_threads: 3 },
  });
  try {
    await svc.ready();
    const pool = svc.readPool();
    await pool.prestart();
    await warmReadWorkers(svc);
    assert.equal(pool.threads().length, 3, "no spare started for it");
    // Each of the three texts ran in a worker (a text runs on the main thread only once it has
    // been seen to be tiny three times).
    for (const i of [0, 1, 2]) {
      assert.equal(pool.costs.isKnownShort(`select ${i} from sqlite_master limit 1`), true);
    }
  } finally {
    cleanup();
  }
});
