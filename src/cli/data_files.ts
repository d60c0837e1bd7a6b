/**
 * Serving CSV, TSV, JSON and NDJSON files directly (`vitrine data.csv people.json`): each file is
 * imported at start into a table named after it, in a database named after it or, with
 * `--into NAME`, all in one. The database lives in memory and is served immutable (no writes;
 * every page, facet, search and export works on it); `--into FILE.db` writes it to that SQLite
 * file instead, served immutable too.
 *
 * @module
 */

import { basename, extname } from "node:path";
import type { Service } from "../service.ts";
import { Database } from "../db/database.ts";
import { Connection } from "../sqlite/connection.ts";
import { importFile } from "../db/import/import_file.ts";
import { formatOfName } from "../db/import/open_source.ts";
import { quoteName } from "../db/write_values.ts";
import { CliExit } from "./exit.ts";

/** True for a file whose name says it is CSV, TSV, JSON or NDJSON. */
export function isDataFile(path: string): boolean {
  return formatOfName(path) !== null;
}

/** The stem a data file's table (and database) is named after: `people.csv` → `people`. */
export function dataFileStem(path: string): string {
  return basename(path, extname(path));
}

/** Data files imported and waiting to be attached to the service. */
export interface ImportedData {
  /** SQLite files written with `--into FILE.db`: serve them as immutable. */
  immutables: string[];
  /**
   * Adds the in-memory databases to `svc`. Unless `keepMemory` (`--memory`, `--crossdb`), the
   * empty `_memory` database a service starts with when given no files is taken away: these
   * files are what it serves.
   */
  attach(svc: Service, keepMemory: boolean): void;
}

/**
 * Takes away the empty `_memory` database a service starts with when given no database files,
 * when what it serves comes from data files or a data library instead.
 */
export function dropDefaultMemory(svc: Service): void {
  const memory = svc.databases.get("_memory");
  if (memory instanceof Database && memory.is_memory && memory.memory_name === null) {
    svc.remove_database("_memory");
  }
}

const FILE_SUFFIX = /\.(db|sqlite3?)$/i;

/** Imports `files` (see the module comment); an import error ends the command naming the file. */
export async function importDataFiles(files: string[], into?: string): Promise<ImportedData> {
  if (!files.length) return { immutables: [], attach: () => {} };
  if (into && FILE_SUFFIX.test(into)) {
    const conn = Connection.open(into, { mode: "rwc" });
    try {
      await importAll(conn, files, true);
    } finally {
      conn.close();
    }
    return { immutables: [into], attach: () => {} };
  }
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const name = into || dataFileStem(file);
    groups.set(name, [...(groups.get(name) ?? []), file]);
  }
  const memories: { name: string; memoryName: string; keepAlive: Connection }[] = [];
  for (const [name, group] of groups) {
    const memoryName = `vitrine-import-${name}-${crypto.randomUUID()}`;
    const keepAlive = Connection.open("", { memoryName });
    memories.push({ name, memoryName, keepAlive });
    await importAll(keepAlive, group, false);
  }
  return {
    immutables: [],
    attach(svc, keepMemory) {
      if (!keepMemory) dropDefaultMemory(svc);
      for (const { name, memoryName, keepAlive } of memories) {
        svc.add_database(new Database(svc, { memory_name: memoryName, is_mutable: false }), {
          name,
        });
        // The database keeps its own connection open now, which keeps the data alive.
        keepAlive.close();
      }
    },
  };
}

/**
 * Each file into a table named after it (`_2`… when two share a name). Into a file (`replace`),
 * a table of that name from an earlier run is replaced, so the file shows the data as it is now.
 */
async function importAll(conn: Connection, files: string[], replace: boolean): Promise<void> {
  const taken = new Set<string>();
  for (const file of files) {
    const stem = dataFileStem(file);
    let table = stem;
    for (let n = 2; taken.has(table.toLowerCase()); n++) table = `${stem}_${n}`;
    taken.add(table.toLowerCase());
    try {
      if (replace) {
        conn.exec(`DROP TABLE IF EXISTS ${quoteName(`${table}_fts`)}`);
        conn.exec(`DROP TABLE IF EXISTS ${quoteName(table)}`);
      }
      const result = await importFile(conn, { path: file, table });
      // On standard error: with --get, standard output is the response.
      console.error(`Imported ${file}: ${result.rows.toLocaleString("en")} rows into ${table}`);
    } catch (error) {
      throw new CliExit(1, `Error: ${file}: ${(error as Error).message}`);
    }
  }
}
