/**
 * What `vitrine inspect` reports for database files: hash, size, path and each table's row count.
 * `serve --inspect-file` (and the images `vitrine package` builds) read it back so immutable
 * files are neither hashed nor counted at start-up.
 *
 * @module
 */
import { Database } from "./database.ts";
import { standaloneHost } from "./host.ts";

/** One file's entry, keyed by database name (the file stem) in {@link inspectFiles}' result. */
export interface InspectedDatabase {
  hash: string | null;
  size: number;
  file: string | null;
  tables: Record<string, { count: number }>;
}

/** Inspects `files` as immutable databases, on the main thread (no worker pool). */
export async function inspectFiles(files: string[]): Promise<Record<string, InspectedDatabase>> {
  const out: Record<string, InspectedDatabase> = {};
  const host = standaloneHost({ settings: { num_sql_threads: 0 } });
  for (const path of files) {
    const db = new Database(host, { path, is_mutable: false });
    try {
      const tables: Record<string, { count: number }> = {};
      for (const table of await db.table_names()) {
        const sql = `select count(*) from [${table.replaceAll("]", "]]")}]`;
        const count = (await db.execute(sql, [], { custom_time_limit: 60_000 })).single_value();
        tables[table] = { count: Number(count) };
      }
      out[db.name] = { hash: db.hash, size: db.size, file: db.path, tables };
    } finally {
      db.close();
    }
  }
  host.close();
  return out;
}
