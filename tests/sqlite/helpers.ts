/** Test helpers: temporary directories with real SQLite files. */

import { Connection } from "../../src/sqlite/mod.ts";

/** Runs `body` with a fresh temporary directory, removed afterwards. */
export async function withTempDir(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vitrine_sqlite_" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Creates a database file at `path` containing `script`. */
export function createDatabase(path: string, script: string): void {
  const conn = Connection.open(path);
  try {
    conn.exec(script);
  } finally {
    conn.close();
  }
}
