/**
 * Metadata edited while serving (the `edit-metadata` action): titles, descriptions, licences,
 * sources and column descriptions and units of databases and tables, kept in the internal
 * database's `metadata_edits` table, so they last as long as it does (`--internal file.db`
 * keeps them across restarts) and every process sharing that file serves them.
 *
 * Metadata is read synchronously everywhere (`svc.metadata()`), so the rows are kept in memory as
 * an overlay in the shape of `-m` metadata, which the service merges over the files' metadata.
 * {@link MetadataEdits.refresh} runs at the start of every request: it compares the internal
 * file's `PRAGMA data_version` (one cheap pragma, `data_version.ts`) with the one the rows were
 * read at, and reads them again only when some process committed to the file since. An
 * in-memory internal database is only written by this process, through this store.
 *
 * @module
 */

import type { Database } from "./database.ts";

/** The `metadata_edits` table (created on first use). `''` names no table or column. */
export const METADATA_EDITS_SCHEMA = `
CREATE TABLE IF NOT EXISTS metadata_edits (
  database_name TEXT NOT NULL,
  table_name TEXT NOT NULL DEFAULT '',
  column_name TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (database_name, table_name, column_name, key)
);
`;

/** The keys a database or table may have edited (the metadata's display keys). */
export const EDITABLE_KEYS = [
  "title",
  "description",
  "license",
  "license_url",
  "source",
  "source_url",
  "about",
  "about_url",
] as const;

/** The keys a column may have edited: its description (`columns`) and its unit (`units`). */
export const COLUMN_KEYS = ["description", "unit"] as const;

/** One change: a value to keep, or null (or `''`) to drop the edit and show the files' again. */
export interface MetadataEdit {
  /** The column, or null for the database or table itself. */
  column: string | null;
  /** One of {@link EDITABLE_KEYS}, or of {@link COLUMN_KEYS} for a column. */
  key: string;
  /** The new value; null or blank removes the edit. */
  value: string | null;
}

type Overlay = Record<string, unknown>;

/** The edited metadata of one internal database, as a metadata overlay. */
export class MetadataEdits {
  readonly #internal: Database;
  readonly #ready: Promise<void>;
  #overlay: Overlay = {};
  #text = "{}";
  #generation = 0;
  /** The internal file's contents key the rows were read at; undefined before the first read. */
  #readAt: string | null | undefined = undefined;
  #reading: Promise<void> | null = null;

  /**
   * @param internal the internal database
   * @param ready resolves once the internal database's own tables exist
   */
  constructor(internal: Database, ready: Promise<void>) {
    this.#internal = internal;
    this.#ready = ready.then(() => internal.execute_write_script(METADATA_EDITS_SCHEMA))
      .then(() => {});
    // Awaited by every read and write, which report a failure; not unhandled meanwhile.
    this.#ready.catch(() => {});
  }

  /** The edits in the shape of metadata (`{databases: {db: {title, tables: {…}}}}`). */
  get overlay(): Overlay {
    return this.#overlay;
  }

  /** Changes each time the overlay is read anew with other contents. */
  get generation(): number {
    return this.#generation;
  }

  /** The overlay as text: the same on every replica holding the same edits (pages' tags). */
  get key(): string {
    return this.#text;
  }

  /** Reads the rows again when another connection or process changed the internal file. */
  async refresh(): Promise<void> {
    let key: string | null;
    try {
      key = this.#internal.contentsKey();
    } catch (error) {
      return unreadable(error);
    }
    // A memory database (key null, only this store writes it) is read once; a busy file anew.
    if (
      this.#readAt !== undefined && (key === null ? this.#internal.is_memory : key === this.#readAt)
    ) {
      return;
    }
    // An internal file that cannot be read (locked for long, damaged) must not fail every page:
    // the edits read last keep showing, and the next request tries again.
    this.#reading ??= this.#read(key)
      .catch(unreadable)
      .finally(() => this.#reading = null);
    await this.#reading;
  }

  async #read(key: string | null): Promise<void> {
    await this.#ready;
    const rows = (await this.#internal.execute(
      `select database_name, table_name, column_name, key, value from metadata_edits
      order by database_name, table_name, column_name, key`,
      null,
      { truncate: false, request_deadline: false, byte_cap: false },
    )).values as string[][];
    const overlay = overlayOf(rows);
    const text = JSON.stringify(overlay);
    if (text !== this.#text) {
      this.#overlay = overlay;
      this.#text = text;
      this.#generation++;
    }
    this.#readAt = key;
  }

  /**
   * Applies `edits` to `database` (or its `table`) in one transaction, then reads the rows again.
   *
   * @throws {TypeError} for a key that is not editable there
   */
  async apply(database: string, table: string | null, edits: MetadataEdit[]): Promise<void> {
    for (const edit of edits) {
      const allowed: readonly string[] = edit.column === null ? EDITABLE_KEYS : COLUMN_KEYS;
      if (!allowed.includes(edit.key)) throw new TypeError(`Cannot edit "${edit.key}"`);
      if (edit.column !== null && table === null) throw new TypeError("Columns belong to tables");
    }
    await this.#ready;
    await this.#internal.execute_write_fn((conn) => {
      // An error rolls the whole edit back (execute_write_fn does).
      conn.run("BEGIN");
      for (const { column, key, value } of edits) {
        const where = [database, table ?? "", column ?? "", key];
        if (value === null || value.trim() === "") {
          conn.run(
            `DELETE FROM metadata_edits WHERE database_name = ? AND table_name = ?
              AND column_name = ? AND key = ?`,
            where,
          );
        } else {
          conn.run(
            `INSERT INTO metadata_edits (database_name, table_name, column_name, key, value)
              VALUES (?, ?, ?, ?, ?)
              ON CONFLICT DO UPDATE SET value = excluded.value, updated_at = CURRENT_TIMESTAMP`,
            [...where, value],
          );
        }
      }
      conn.run("COMMIT");
    });
    await this.#read(this.#internal.contentsKey());
  }
}

function unreadable(error: unknown): void {
  console.error(`Could not read the edited metadata: ${error}`);
}

/** Rows → `{databases: {db: {…, tables: {t: {…, columns: {c: d}, units: {c: u}}}}}}`. */
function overlayOf(rows: string[][]): Overlay {
  const databases: Record<string, Overlay> = {};
  const at = (parent: Overlay, key: string): Overlay => (parent[key] ??= {}) as Overlay;
  for (const [database, table, column, key, value] of rows) {
    let target = databases[database] ??= {};
    if (table !== "") target = at(at(target, "tables"), table);
    if (column !== "") {
      at(target, key === "unit" ? "units" : "columns")[column] = value;
    } else {
      target[key] = value;
      // An edited description shows instead of the files' HTML one.
      if (key === "description") target.description_html = null;
    }
  }
  return Object.keys(databases).length ? { databases } : {};
}
