/**
 * Stored queries: queries people saved from the SQL editor, kept in the internal database's
 * `queries` table (the reference's table and column names, plus `shared_with`), so they last
 * as long as the internal database does (`--internal file.db` keeps them across restarts).
 *
 * Every `/<db>/<name>` request asks whether `name` is a stored query before it is taken for a
 * table, so the rows are read once and kept in memory; every change goes through this store,
 * which writes the table and its copy together.
 *
 * @module
 */

import type { Database } from "./database.ts";
import type { SqlValue } from "./values.ts";

/** The `queries` table (created on first use). */
export const STORED_QUERIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS queries (
  database_name TEXT NOT NULL,
  name TEXT NOT NULL,
  sql TEXT NOT NULL,
  title TEXT,
  description TEXT,
  description_html TEXT,
  options TEXT NOT NULL DEFAULT '{}',
  parameters TEXT NOT NULL DEFAULT '[]',
  is_write INTEGER NOT NULL DEFAULT 0 CHECK (is_write IN (0, 1)),
  is_private INTEGER NOT NULL DEFAULT 0 CHECK (is_private IN (0, 1)),
  is_trusted INTEGER NOT NULL DEFAULT 0 CHECK (is_trusted IN (0, 1)),
  source TEXT NOT NULL DEFAULT 'user',
  owner_id TEXT,
  shared_with TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (database_name, name)
);
CREATE INDEX IF NOT EXISTS queries_owner_idx ON queries(owner_id);
`;

/** One stored query, in the reference's JSON shape plus `shared_with`. */
export interface StoredQuery {
  database: string;
  name: string;
  sql: string;
  title: string | null;
  description: string | null;
  description_html: string | null;
  hide_sql: boolean;
  fragment: string | null;
  /** Parameter names, or `{name, label, default, options, type}` objects. */
  parameters: unknown[];
  is_write: boolean;
  /** True: only the owner and the actors in `shared_with` see it; false: everyone who may. */
  is_private: boolean;
  is_trusted: boolean;
  source: string;
  owner_id: string | null;
  /** Actor ids a private query is shared with. */
  shared_with: string[];
  created_at: string;
  updated_at: string;
}

/** The fields a store or an update sets. */
export type StoredQueryFields = Pick<
  StoredQuery,
  | "sql"
  | "title"
  | "description"
  | "description_html"
  | "hide_sql"
  | "fragment"
  | "parameters"
  | "is_private"
  | "shared_with"
>;

const COLUMNS = `database_name, name, sql, title, description, description_html, options,
  parameters, is_write, is_private, is_trusted, source, owner_id, shared_with, created_at,
  updated_at`;

/** The stored queries of one service, by database and name. */
export class StoredQueries {
  readonly #internal: Database;
  #loaded: Promise<Map<string, Map<string, StoredQuery>>> | null = null;

  /** @param internal the internal database (its schema promise awaited by `ready`) */
  constructor(internal: Database, ready: Promise<void> = Promise.resolve()) {
    this.#internal = internal;
    this.#ready = ready;
  }

  readonly #ready: Promise<void>;

  /** Every stored query of `database` (or of every database), ordered by title or name. */
  async list(database?: string | null): Promise<StoredQuery[]> {
    const all = await this.#all();
    const picked = database == null
      ? [...all.values()].flatMap((queries) => [...queries.values()])
      : [...(all.get(database)?.values() ?? [])];
    return picked.sort((a, b) =>
      a.database.localeCompare(b.database) ||
      sortKey(a).localeCompare(sortKey(b)) ||
      a.name.localeCompare(b.name)
    );
  }

  /** The stored query `name` of `database`, or null. */
  async get(database: string, name: string): Promise<StoredQuery | null> {
    return (await this.#all()).get(database)?.get(name) ?? null;
  }

  /** Saves a new query; false when the name is taken in that database. */
  async add(
    database: string,
    name: string,
    owner_id: string | null,
    fields: StoredQueryFields,
  ): Promise<boolean> {
    const all = await this.#all();
    if (all.get(database)?.has(name)) return false;
    const inserted = await this.#internal.execute_write(
      `INSERT INTO queries (database_name, name, sql, title, description, description_html,
        options, parameters, is_private, owner_id, shared_with)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (database_name, name) DO NOTHING
      RETURNING ${COLUMNS}`,
      [
        database,
        name,
        fields.sql,
        fields.title,
        fields.description,
        fields.description_html,
        optionsJson(fields),
        JSON.stringify(fields.parameters),
        fields.is_private ? 1 : 0,
        owner_id,
        JSON.stringify(fields.shared_with),
      ],
    );
    const row = inserted.rows[0];
    if (!row) return false;
    this.#remember(all, fromRow(objectRow(inserted.columns, row)));
    return true;
  }

  /** Changes some fields of a stored query; the query after the change, or null if gone. */
  async update(
    database: string,
    name: string,
    changes: Partial<StoredQueryFields>,
  ): Promise<StoredQuery | null> {
    const all = await this.#all();
    const existing = all.get(database)?.get(name);
    if (!existing) return null;
    const merged = { ...existing, ...changes };
    const updated = await this.#internal.execute_write(
      `UPDATE queries SET sql = ?, title = ?, description = ?, description_html = ?,
        options = ?, parameters = ?, is_private = ?, shared_with = ?,
        updated_at = CURRENT_TIMESTAMP
      WHERE database_name = ? AND name = ?
      RETURNING ${COLUMNS}`,
      [
        merged.sql,
        merged.title,
        merged.description,
        merged.description_html,
        optionsJson(merged),
        JSON.stringify(merged.parameters),
        merged.is_private ? 1 : 0,
        JSON.stringify(merged.shared_with),
        database,
        name,
      ],
    );
    const row = updated.rows[0];
    if (!row) return null;
    const query = fromRow(objectRow(updated.columns, row));
    this.#remember(all, query);
    return query;
  }

  /** Deletes a stored query; false when there was none. */
  async remove(database: string, name: string): Promise<boolean> {
    const all = await this.#all();
    if (!all.get(database)?.has(name)) return false;
    await this.#internal.execute_write(
      "DELETE FROM queries WHERE database_name = ? AND name = ?",
      [database, name],
    );
    all.get(database)?.delete(name);
    return true;
  }

  #remember(all: Map<string, Map<string, StoredQuery>>, query: StoredQuery): void {
    let queries = all.get(query.database);
    if (!queries) all.set(query.database, queries = new Map());
    queries.set(query.name, query);
  }

  #all(): Promise<Map<string, Map<string, StoredQuery>>> {
    this.#loaded ??= this.#load();
    return this.#loaded;
  }

  async #load(): Promise<Map<string, Map<string, StoredQuery>>> {
    await this.#ready;
    await this.#internal.execute_write_script(STORED_QUERIES_SCHEMA);
    const rows = await this.#internal.execute(`SELECT ${COLUMNS} FROM queries`, null, {
      truncate: false,
      request_deadline: false,
      byte_cap: false,
    });
    const all = new Map<string, Map<string, StoredQuery>>();
    for (const row of rows.values) this.#remember(all, fromRow(objectRow(rows.columns, row)));
    return all;
  }
}

function objectRow(columns: string[], row: SqlValue[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column, i) => [column, row[i]]));
}

function sortKey(query: StoredQuery): string {
  return (query.title || query.name).toLowerCase();
}

/** `hide_sql` and `fragment` live in `options`, as in the reference. */
function optionsJson(fields: Pick<StoredQuery, "hide_sql" | "fragment">): string {
  const options: Record<string, unknown> = {};
  if (fields.hide_sql) options.hide_sql = true;
  if (fields.fragment) options.fragment = fields.fragment;
  return JSON.stringify(options);
}

function parsed<T>(text: unknown, fallback: T): T {
  try {
    return typeof text === "string" ? JSON.parse(text) as T : fallback;
  } catch {
    return fallback;
  }
}

function fromRow(row: Record<string, unknown>): StoredQuery {
  const options = parsed<Record<string, unknown>>(row.options, {});
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return {
    database: String(row.database_name),
    name: String(row.name),
    sql: String(row.sql),
    title: text(row.title),
    description: text(row.description),
    description_html: text(row.description_html),
    hide_sql: Boolean(options.hide_sql),
    fragment: text(options.fragment),
    parameters: parsed<unknown[]>(row.parameters, []),
    is_write: Boolean(row.is_write),
    is_private: Boolean(row.is_private),
    is_trusted: Boolean(row.is_trusted),
    source: String(row.source),
    owner_id: text(row.owner_id),
    shared_with: parsed<unknown[]>(row.shared_with, []).map(String),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}
