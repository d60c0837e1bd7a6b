/**
 * A data library: a folder whose SQLite files and CSV/TSV/JSON/NDJSON files are served, kept in
 * step with the folder while the server runs (`vitrine serve DIR`, `--library DIR`). A file that
 * appears becomes a database within a second; one that goes away disappears (the requests that
 * had already found it finish first: `svc.remove_database`); a file replaced by another (a new
 * inode), an immutable file or a data file changed in place, is served anew under the same name,
 * so an immutable file is hashed again and the caches keyed by its old hash are never used.
 * A mutable file written in place is left alone: SQLite sees those writes itself (and the
 * server's own writes change it too).
 *
 * @module
 */

import { basename, extname, join, resolve } from "node:path";
import type { Service } from "../service.ts";
import { Database } from "../db/database.ts";
import { checkDatabaseFile } from "../db/file_check.ts";
import { Connection } from "../sqlite/connection.ts";
import { importFile } from "../db/import/import_file.ts";
import type { ImportResult } from "../db/import/importer.ts";
import { isDataFile, keepColumnTypes } from "./data_files.ts";
import { looksLikeSqlite } from "./sqlite_file.ts";

const DATABASE_SUFFIX = /\.(db|sqlite3?)$/i;
/** A configuration directory's own files (config/config_dir.ts), which are not data. */
const CONFIG_FILES = new Set(["metadata.json", "settings.json", "inspect-data.json"]);
/** Quiet time after a file's last event before acting on it (a copy is written in pieces). */
const SETTLE_MS = 150;

/** What the library knows of one served file. */
interface Entry {
  name: string;
  ino: number | null;
  size: number;
  mtime: number;
}

/** Options of a {@link Library}. */
export interface LibraryOptions {
  /** Serve its SQLite files as immutable (hashed, cached; a change means a new file). */
  immutable?: boolean;
  /** Print what changes (default true). */
  log?: (line: string) => void;
}

/** Keeps `svc`'s databases in step with the files of one folder. */
export class Library {
  readonly dir: string;
  #svc: Service;
  #immutable: boolean;
  #log: (line: string) => void;
  #entries = new Map<string, Entry>();
  #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #watcher: Deno.FsWatcher | null = null;
  /** One change at a time, in order. */
  #queue: Promise<void> = Promise.resolve();

  constructor(svc: Service, dir: string, options: LibraryOptions = {}) {
    this.dir = resolve(dir);
    this.#svc = svc;
    this.#immutable = options.immutable ?? false;
    this.#log = options.log ?? ((line) => console.error(line));
  }

  /** True for a file of the folder the library serves. */
  static serves(name: string): boolean {
    return !CONFIG_FILES.has(name) && (DATABASE_SUFFIX.test(name) || isDataFile(name));
  }

  /**
   * Serves what the folder holds now: databases the service already has from this folder are
   * taken over, the other files added. Run once before serving.
   */
  async scan(): Promise<void> {
    for (const db of this.#svc.databases.values()) {
      if (db.path && resolve(db.path).startsWith(this.dir + "/")) {
        const facts = stat(resolve(db.path));
        if (facts) this.#entries.set(resolve(db.path), { name: db.name, ...facts });
      }
    }
    const names = [...Deno.readDirSync(this.dir)].filter((e) => e.isFile).map((e) => e.name)
      .filter(Library.serves).sort();
    for (const name of names) await this.#settle(join(this.dir, name), false);
  }

  /** Watches the folder until {@link close}. */
  watch(): void {
    this.#watcher = Deno.watchFs(this.dir, { recursive: false });
    (async () => {
      for await (const event of this.#watcher!) {
        for (const path of event.paths) {
          if (Library.serves(basename(path))) this.#soon(resolve(path));
        }
      }
    })().catch((error) => this.#log(`Library: stopped watching ${this.dir}: ${error}`));
  }

  /** Resolves once the changes seen so far have been acted on (for tests). */
  async settled(): Promise<void> {
    while (this.#timers.size) await new Promise((r) => setTimeout(r, SETTLE_MS));
    await this.#queue;
  }

  /** Stops watching. */
  close(): void {
    this.#watcher?.close();
    this.#watcher = null;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #soon(path: string): void {
    clearTimeout(this.#timers.get(path));
    // A file gone is taken away at once: new requests must not open a file that is not there.
    if (stat(path) === null && this.#entries.has(path)) {
      this.#timers.delete(path);
      this.#enqueue(path);
      return;
    }
    this.#timers.set(
      path,
      setTimeout(() => {
        this.#timers.delete(path);
        this.#enqueue(path);
      }, SETTLE_MS),
    );
  }

  #enqueue(path: string): void {
    this.#queue = this.#queue.then(() => this.#settle(path, true)).catch((error) =>
      this.#log(`Library: ${basename(path)}: ${error instanceof Error ? error.message : error}`)
    );
  }

  /** Brings the database of `path` in line with the file. */
  async #settle(path: string, announce: boolean): Promise<void> {
    const facts = stat(path);
    const entry = this.#entries.get(path);
    if (facts === null) {
      if (!entry) return;
      this.#entries.delete(path);
      if (this.#svc.databases.has(entry.name)) this.#svc.remove_database(entry.name);
      this.#log(`Library: ${basename(path)} is gone; database "${entry.name}" removed`);
      return;
    }
    const isDatabase = DATABASE_SUFFIX.test(path);
    if (entry) {
      const replaced = entry.ino !== facts.ino;
      const changed = entry.size !== facts.size || entry.mtime !== facts.mtime;
      if (!replaced && !(changed && (this.#immutable || !isDatabase))) return;
    }
    // An empty file is still being written (a copy's first event).
    if (facts.size === 0) return;
    const imported = isDatabase ? null : await this.#importData(path);
    const db = imported?.db ?? this.#openDatabase(path);
    const name = entry?.name ?? this.#freeName(stem(path));
    if (entry && this.#svc.databases.has(entry.name)) this.#svc.remove_database(entry.name);
    this.#svc.add_database(db, { name });
    if (imported) await keepColumnTypes(this.#svc, name, imported.table);
    if (announce) db.added_at = new Date();
    this.#entries.set(path, { name, ...facts });
    if (announce) {
      this.#log(`Library: ${basename(path)} ${entry ? "replaced" : "added"} as "${name}"`);
    }
  }

  #openDatabase(path: string): Database {
    if (!looksLikeSqlite(path)) throw new Error("not a SQLite database; skipped");
    checkDatabaseFile(path, { immutable: this.#immutable });
    return new Database(this.#svc, { path, is_mutable: !this.#immutable });
  }

  async #importData(
    path: string,
  ): Promise<{ db: Database; table: { table: string; columns: ImportResult["columns"] } }> {
    const memoryName = `vitrine-library-${stem(path)}-${crypto.randomUUID()}`;
    const conn = Connection.open("", { memoryName });
    try {
      const { table, columns } = await importFile(conn, { path, table: stem(path) });
      const db = new Database(this.#svc, { memory_name: memoryName, is_mutable: false });
      return { db, table: { table, columns } };
    } finally {
      // The database holds its own connection now, which keeps the data alive.
      conn.close();
    }
  }

  #freeName(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.#svc.databases.has(name); n++) name = `${wanted}_${n}`;
    return name;
  }
}

function stem(path: string): string {
  return basename(path, extname(path));
}

function stat(path: string): Omit<Entry, "name"> | null {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) return null;
    return { ino: info.ino, size: info.size, mtime: info.mtime?.getTime() ?? 0 };
  } catch {
    return null;
  }
}
