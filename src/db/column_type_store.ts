/**
 * Column types set through `POST /<db>/<table>/-/set-column-type`, kept in the internal
 * database's `column_types` table (the reference's table and column names), so they last as long
 * as the internal database does (`--internal file.db` keeps them across restarts). A stored
 * assignment overrides what configuration says about the same column; a stored null
 * (`column_type` NULL) says "no type", so an actor can also take a configured type away.
 *
 * Every table page asks for its table's assignments, so the rows are read once and kept in
 * memory; every change goes through this store, which writes the table and its copy together.
 *
 * @module
 */

import type { Database } from "./database.ts";

/** The `column_types` table (created on first use). */
export const COLUMN_TYPES_SCHEMA = `
CREATE TABLE IF NOT EXISTS column_types (
  database_name TEXT NOT NULL,
  resource_name TEXT NOT NULL,
  column_name TEXT NOT NULL,
  column_type TEXT,
  config TEXT,
  PRIMARY KEY (database_name, resource_name, column_name)
);
`;

/** One stored assignment: a type name with its options, or null for "no type". */
export type StoredColumnType = { type: string; config: Record<string, unknown> | null } | null;

/** The column types people set, by database, table and column. */
export class ColumnTypeStore {
  readonly #internal: Database;
  readonly #ready: Promise<void>;
  #loaded: Promise<Map<string, Map<string, StoredColumnType>>> | null = null;
  #key: string | null = null;

  /** @param internal the internal database (its schema promise awaited by `ready`) */
  constructor(internal: Database, ready: Promise<void> = Promise.resolve()) {
    this.#internal = internal;
    this.#ready = ready;
  }

  /** The stored assignments of one table: column → assignment (null: typed "none"). */
  async forTable(database: string, table: string): Promise<Map<string, StoredColumnType>> {
    return (await this.#all()).get(key(database, table)) ?? new Map();
  }

  /**
   * Changes whenever an assignment does: part of every page's tag (`app/conditional.ts`), so a
   * page cached before a type was set is not sent again. (Another process sharing the internal
   * file is not watched: its assignments show after a restart.)
   */
  async key(): Promise<string> {
    const all = await this.#all();
    // The assignments themselves, not a count: a tag from before a restart stays comparable.
    this.#key ??= JSON.stringify(
      [...all].flatMap(([table, columns]) => [...columns].map((entry) => [table, ...entry])).sort(),
    );
    return this.#key;
  }

  /** Stores an assignment (null: no type, whatever configuration says). */
  async set(
    database: string,
    table: string,
    column: string,
    assignment: StoredColumnType,
  ): Promise<void> {
    const all = await this.#all();
    await this.#internal.execute_write(
      `INSERT OR REPLACE INTO column_types
        (database_name, resource_name, column_name, column_type, config) VALUES (?, ?, ?, ?, ?)`,
      [
        database,
        table,
        column,
        assignment?.type ?? null,
        assignment?.config ? JSON.stringify(assignment.config) : null,
      ],
    );
    let columns = all.get(key(database, table));
    if (!columns) all.set(key(database, table), columns = new Map());
    columns.set(column, assignment);
    this.#key = null;
  }

  #all(): Promise<Map<string, Map<string, StoredColumnType>>> {
    this.#loaded ??= this.#load();
    return this.#loaded;
  }

  async #load(): Promise<Map<string, Map<string, StoredColumnType>>> {
    await this.#ready;
    await this.#internal.execute_write_script(COLUMN_TYPES_SCHEMA);
    const rows = await this.#internal.execute(
      "SELECT database_name, resource_name, column_name, column_type, config FROM column_types",
      null,
      { truncate: false, request_deadline: false, byte_cap: false },
    );
    const all = new Map<string, Map<string, StoredColumnType>>();
    for (const [database, table, column, type, config] of rows.values) {
      const k = key(String(database), String(table));
      let columns = all.get(k);
      if (!columns) all.set(k, columns = new Map());
      columns.set(
        String(column),
        type === null
          ? null
          : { type: String(type), config: config ? JSON.parse(String(config)) : null },
      );
    }
    return all;
  }
}

/** One key per table: the names joined by a character neither may contain. */
function key(database: string, table: string): string {
  return `${database}\u0000${table}`;
}
