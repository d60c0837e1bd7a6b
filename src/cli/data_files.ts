/**
 * Serving CSV, TSV, JSON and NDJSON files directly (`vitrine data.csv people.json`): each file is
 * imported at start into a table named after it, in a database named after it or, with
 * `--into NAME`, all in one. The database lives in memory and is served immutable (no writes;
 * every page, facet, search and export works on it); `--into FILE.db` writes it to that SQLite
 * file instead, served immutable too.
 *
 * @module
 */

import { basename, extname, resolve } from "node:path";
import type { Service } from "../service.ts";
import { Database } from "../db/database.ts";
import { Connection } from "../sqlite/connection.ts";
import { importFile } from "../db/import/import_file.ts";
import type { ImportResult } from "../db/import/importer.ts";
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
   * Adds the in-memory databases to `svc`, and gives columns of ISO dates their column type.
   * Unless `keepMemory` (`--memory`, `--crossdb`), the empty `_memory` database a service starts
   * with when given no files is taken away: these files are what it serves.
   */
  attach(svc: Service, keepMemory: boolean): Promise<void>;
}

/** A table an import made, and what it found of its columns. */
interface ImportedTable {
  table: string;
  columns: ImportResult["columns"];
}

/**
 * Gives the columns of `table` an import found to hold ISO dates alone their column type
 * (`date`, `datetime`) in the service's column type store, as pasted rows get it.
 */
export async function keepColumnTypes(
  svc: Service,
  database: string,
  { table, columns }: ImportedTable,
): Promise<void> {
  // Not checked against the registry, which the plugins fill later: a stored type no plugin
  // registers is left out when read.
  for (const { name, column_type } of columns) {
    if (!column_type) continue;
    await svc.column_type_store.set(database, table, name, { type: column_type, config: null });
  }
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
  if (!files.length) return { immutables: [], attach: async () => {} };
  if (into && FILE_SUFFIX.test(into)) {
    const conn = Connection.open(into, { mode: "rwc" });
    let tables: ImportedTable[];
    try {
      tables = await importAll(conn, files, true);
    } finally {
      conn.close();
    }
    return {
      immutables: [into],
      async attach(svc) {
        const path = resolve(into);
        const db = [...svc.databases.values()].find((db) =>
          db instanceof Database && db.path !== null && resolve(db.path) === path
        );
        for (const table of db ? tables : []) await keepColumnTypes(svc, db!.name, table);
      },
    };
  }
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const name = into || dataFileStem(file);
    groups.set(name, [...(groups.get(name) ?? []), file]);
  }
  const memories: {
    name: string;
    memoryName: string;
    keepAlive: Connection;
    tables: ImportedTable[];
  }[] = [];
  for (const [name, group] of groups) {
    const memoryName = `vitrine-import-${name}-${crypto.randomUUID()}`;
    const keepAlive = Connection.open("", { memoryName });
    const tables = await importAll(keepAlive, group, false);
    memories.push({ name, memoryName, keepAlive, tables });
  }
  return {
    immutables: [],
    async attach(svc, keepMemory) {
      if (!keepMemory) dropDefaultMemory(svc);
      for (const { name, memoryName, keepAlive, tables } of memories) {
        svc.add_database(new Database(svc, { memory_name: memoryName, is_mutable: false }), {
          name,
        });
        // The database keeps its own connection open now, which keeps the data alive.
        keepAlive.close();
        for (const table of tables) await keepColumnTypes(svc, name, table);
      }
    },
  };
}

/**
 * Each file into a table named after it (`_2`… when two share a name). Into a file (`replace`),
 * a table of that name from an earlier run is replaced, so the file shows the data as it is now.
 */
async function importAll(
  conn: Connection,
  files: string[],
  replace: boolean,
): Promise<ImportedTable[]> {
  const taken = new Set<string>();
  const tables: ImportedTable[] = [];
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
      tables.push({ table, columns: result.columns });
      // On standard error: with --get, standard output is the response.
      console.error(`Imported ${file}: ${result.rows.toLocaleString("en")} rows into ${table}`);
    } catch (error) {
      throw new CliExit(1, `Error: ${file}: ${(error as Error).message}`);
    }
  }
  return tables;
}
