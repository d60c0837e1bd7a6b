/**
 * The databases a service starts with: the files, immutable files and PostgreSQL URLs of its
 * options, and `_memory` when asked for (or when nothing else is served); and the check that
 * refuses a damaged file before anyone reaches it. Apart from `Service`, which only calls them
 * (from its constructor, and at boot).
 *
 * @module
 */

import { Database } from "../db/database.ts";
import type { DatabaseEngine } from "../db/engine.ts";
import type { DatabaseHost } from "../db/host.ts";
import { PostgresDatabase } from "../db/postgres_database.ts";
import { parsePgTarget } from "../db/postgres_url.ts";
import { fileSize, fileStem } from "../db/file_facts.ts";
import { checkDatabaseFile } from "../db/file_check.ts";
import type { ServiceOptions } from "../config/service_options.ts";

/** What attaching the initial databases needs of the service. */
export interface InitialDatabasesHost extends DatabaseHost {
  /** The databases attached so far. */
  readonly databases: Map<string, DatabaseEngine>;
  /** Attaches a database under a name (defaulting from the file). */
  add_database<D extends DatabaseEngine>(db: D, options?: { name?: string | null }): D;
}

/** Attaches the databases `options` names to `host`. */
export function attachInitialDatabases(host: InitialDatabasesHost, options: ServiceOptions): void {
  const files = options.files ?? [];
  const immutables = options.immutables ?? [];
  const postgresUrls = options.postgres ?? [];
  for (const path of files) {
    host.add_database(new Database(host, { path, is_mutable: true, nolock: options.nolock }));
  }
  for (const path of immutables) {
    const hash = inspectedHash(options.inspect_data, path);
    host.add_database(
      new Database(host, { path, is_mutable: false, nolock: options.nolock, hash }),
    );
  }
  for (const url of postgresUrls) {
    const target = parsePgTarget(url);
    const schemas = options.postgres_schemas;
    host.add_database(new PostgresDatabase(host, target, { schemas }), { name: target.name });
  }
  const served = files.length + immutables.length + postgresUrls.length;
  if (options.memory || options.crossdb || served === 0) {
    // With --crossdb, /_memory attaches the file databases (up to SQLite's limit of ten).
    const crossdb_attach = options.crossdb
      ? () =>
        [...host.databases.values()]
          .filter((db): db is Database => db instanceof Database && !db.is_memory)
          .slice(0, 10)
      : undefined;
    host.add_database(new Database(host, { is_memory: true, crossdb_attach }), {
      name: "_memory",
    });
  }
}

/**
 * Refuses a damaged or foreign database file before anyone reaches it (`CorruptDatabase`):
 * header and schema for every file, `PRAGMA quick_check` up to `quickCheckMaxMb`.
 */
export function checkDatabaseFiles(
  databases: Iterable<DatabaseEngine>,
  { nolock, quickCheckMaxMb }: { nolock?: boolean; quickCheckMaxMb: number },
): void {
  for (const db of databases) {
    if (db.is_memory || db.path === null) continue;
    checkDatabaseFile(db.path, {
      immutable: !db.is_mutable,
      nolock,
      quickCheckMaxBytes: quickCheckMaxMb * 1024 * 1024,
    });
  }
}

/**
 * The hash `vitrine inspect` recorded for an immutable file, when the file still has the size it
 * recorded (a cheap check that it is the same file); else null and the file is hashed on demand.
 */
function inspectedHash(
  inspectData: Record<string, unknown> | null | undefined,
  path: string,
): string | null {
  const entry = inspectData?.[fileStem(path)] as { hash?: unknown; size?: unknown } | undefined;
  if (typeof entry?.hash !== "string" || typeof entry.size !== "number") return null;
  return entry.size === fileSize(path) ? entry.hash : null;
}
