/**
 * Test helpers: temporary SQLite files built from SQL, and hosts with their own pools.
 *
 * @module
 */

import { Connection } from "../../src/sqlite/connection.ts";
import { standaloneHost, type StandaloneHostOptions } from "../../src/db/host.ts";
import { Database } from "../../src/db/database.ts";

/** The example shop schema and data (tables, a view, FTS5 with content=, compound pk). */
export const SHOP_SCHEMA = Deno.readTextFileSync(
  new URL("../fixtures/shop_schema.sql", import.meta.url),
);

/** A temp directory removed by `cleanup()`. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-db-test-" });
  return { dir, cleanup: () => Deno.removeSync(dir, { recursive: true }) };
}

/** Writes a database file at `dir/name` by running `sql`, and returns its path. */
export function makeDbFile(dir: string, name: string, sql: string): string {
  const path = `${dir}/${name}`;
  const conn = Connection.open(path);
  try {
    conn.exec(sql);
  } finally {
    conn.close();
  }
  return path;
}

/** The service's read-worker entry, which loads plugin modules. */
const READ_WORKER = new URL("../../src/app/read_worker.ts", import.meta.url);

/** A standalone host (default 2 workers unless overridden). Close it at the end. */
export function testHost(options: StandaloneHostOptions = {}) {
  return standaloneHost({
    workerUrl: READ_WORKER,
    ...options,
    settings: { num_sql_threads: 2, ...options.settings },
  });
}

const ITEMS_SCHEMA = "create table items (id integer primary key, name text unique, seq integer);";

/** Runs `fn` with a Database over a fresh file holding an `items` table; cleans up after. */
export async function withItemsDb(
  fn: (db: Database) => Promise<void>,
  settings: Record<string, unknown> = {},
): Promise<void> {
  const { dir, cleanup } = tempDir();
  const host = testHost({ settings });
  const db = new Database(host, { path: makeDbFile(dir, "items.db", ITEMS_SCHEMA) });
  try {
    await fn(db);
  } finally {
    db.close();
    host.close();
    cleanup();
  }
}

/** The `name` column of `items`, in insertion order. */
export async function itemNames(db: Database): Promise<unknown[]> {
  return (await db.execute("select name from items order by id")).rows.map((r) => r[0]);
}
