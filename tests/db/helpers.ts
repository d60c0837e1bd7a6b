/**
 * Test helpers: temporary SQLite files built from SQL, and hosts with their own pools.
 *
 * @module
 */

import { Connection } from "../../src/sqlite/connection.ts";
import { standaloneHost, type StandaloneHostOptions } from "../../src/db/host.ts";

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

/** A standalone host (default 2 workers unless overridden). Close it at the end. */
export function testHost(options: StandaloneHostOptions = {}) {
  return standaloneHost({ ...options, settings: { num_sql_threads: 2, ...options.settings } });
}
