/**
 * `ReadTarget`: a plain, cloneable description of how to open a read-only connection to a
 * database (and which databases to ATTACH), so that workers can open their own connections.
 *
 * @module
 */

import { Connection } from "../sqlite/connection.ts";
import { escapeUriPath } from "../sqlite/open_uri.ts";

/** Where a database's data lives, as needed to open it read-only. */
export interface ReadSource {
  /** The database name (passed to `prepare_connection`, used as ATTACH alias). */
  name: string;
  /** File path; null for memory databases. */
  path: string | null;
  /** Open with `immutable=1`. */
  immutable: boolean;
  /** Name of a shared in-memory database. */
  memoryName: string | null;
  /** Add `nolock=1` to read-only file opens. */
  nolock?: boolean;
  /**
   * Which Database object this is: a file replaced and served again under the same name and
   * path is another database, whose connections must not be the old file's.
   */
  instance?: number;
}

/** A database to open plus the databases ATTACHed to it (`--crossdb`). */
export interface ReadTarget extends ReadSource {
  attach: ReadSource[];
}

/** SQLite's default (and Datasette's) limit of attached databases per connection. */
export const MAX_ATTACHED = 10;

/** A stable key for caching one connection per target. */
export function targetKey(target: ReadTarget): string {
  return JSON.stringify(target);
}

/** True when the target names a private `:memory:` database, which no other thread can open. */
export function isPrivateMemory(source: ReadSource): boolean {
  return source.path === null && source.memoryName === null;
}

/** The `file:` URI for ATTACHing `source` read-only. */
export function attachUri(source: ReadSource): string {
  if (source.memoryName !== null) {
    return `file:${encodeURIComponent(source.memoryName)}?mode=memory&cache=shared`;
  }
  const query = source.immutable ? "mode=ro&immutable=1" : "mode=ro";
  return `file:${escapeUriPath(source.path ?? "")}?${query}${source.nolock ? "&nolock=1" : ""}`;
}

/** Opens the target read-only and attaches its companions (at most {@link MAX_ATTACHED}). */
export function openReadConnection(target: ReadTarget): Connection {
  let conn: Connection;
  if (target.memoryName !== null) {
    conn = Connection.open("", { memoryName: target.memoryName });
  } else if (target.path === null) {
    conn = Connection.open(":memory:");
  } else {
    conn = Connection.open(target.path, {
      mode: "ro",
      immutable: target.immutable,
      nolock: target.nolock,
    });
    // A reader of a mutable file may meet the writer's lock while it commits: wait briefly.
    if (!target.immutable) conn.exec("PRAGMA busy_timeout = 1000");
  }
  try {
    for (const source of target.attach.slice(0, MAX_ATTACHED)) {
      if (isPrivateMemory(source)) continue;
      conn.run("ATTACH DATABASE ? AS ?", [attachUri(source), source.name]);
    }
    // A shared-memory database cannot be opened read-only by URI; refuse writes instead.
    if (target.memoryName !== null) conn.exec("PRAGMA query_only = 1");
  } catch (error) {
    conn.close();
    throw error;
  }
  return conn;
}
