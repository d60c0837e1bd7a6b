/**
 * The main-thread connections of one database: the write connection, the read connection (kept
 * while the set of ATTACHed databases stays the same), and the keep-alive connection that keeps
 * a named in-memory database in existence. Read workers have their own (`pool.ts`).
 *
 * @module
 */

import { Connection } from "../sqlite/connection.ts";
import {
  attachUri,
  isPrivateMemory,
  openReadConnection,
  type ReadSource,
  type ReadTarget,
  targetKey,
} from "./read_target.ts";

/** What the connections need to know about their database. */
export interface ConnectionSource {
  /** The database file; null for memory databases. */
  path: string | null;
  /** The shared in-memory database's name, or null. */
  memory_name: string | null;
  /** Runs on every connection opened: cache size, extensions, `prepare_connection` hooks. */
  prepare(conn: Connection): void;
  /** Runs first on the write connection: busy timeout, journal mode. */
  prepareWriter(conn: Connection): void;
}

/** Opens, reuses and closes the main-thread connections of one database. */
export class DatabaseConnections {
  #source: ConnectionSource;
  #writeConn: Connection | null = null;
  #keepAlive: Connection | null = null;
  #reader: { key: string; conn: Connection } | null = null;
  /** JSON of the ReadSources ATTACHed to the write connection of a private memory database. */
  #attachedKey = "[]";

  constructor(source: ConnectionSource) {
    this.#source = source;
    if (source.memory_name !== null) {
      // A named memory database lives only while a connection to it is open.
      this.#keepAlive = Connection.open("", { memoryName: source.memory_name });
    }
  }

  /**
   * The read connection for `target` (the write connection for private memory databases, which
   * no second connection can see), reopened when the set of ATTACHed databases changes.
   */
  reader(target: ReadTarget): Connection {
    if (isPrivateMemory(target)) {
      const conn = this.writer();
      this.#syncAttachments(conn, target.attach);
      return conn;
    }
    const key = targetKey(target);
    // An execute_fn function may have closed the connection: open a new one then.
    if (this.#reader?.key === key && this.#reader.conn.isOpen) return this.#reader.conn;
    this.#reader?.conn.close();
    this.#reader = null;
    const conn = openReadConnection(target);
    this.#source.prepare(conn);
    this.#reader = { key, conn };
    return conn;
  }

  /** The write connection, opened on first use (and again if a write function closed it). */
  writer(): Connection {
    if (this.#writeConn?.isOpen) return this.#writeConn;
    if (this.#writeConn) this.#attachedKey = "[]";
    const { path, memory_name } = this.#source;
    let conn: Connection;
    if (memory_name !== null) conn = Connection.open("", { memoryName: memory_name });
    else if (path === null) conn = Connection.open(":memory:");
    else conn = Connection.open(path, { mode: "rwc" });
    try {
      this.#source.prepareWriter(conn);
      this.#source.prepare(conn);
    } catch (error) {
      conn.close();
      throw error;
    }
    this.#writeConn = conn;
    return conn;
  }

  /**
   * Hands back the cached pages of the open connections (the pages of a memory database are its
   * data, which SQLite never gives up).
   */
  releaseMemory(): void {
    for (const conn of [this.#writeConn, this.#reader?.conn]) {
      if (conn?.isOpen) conn.releaseMemory();
    }
  }

  /** Closes every connection; a named memory database then ceases to exist. */
  close(): void {
    this.#writeConn?.close();
    this.#reader?.conn.close();
    this.#keepAlive?.close();
    this.#writeConn = this.#reader = this.#keepAlive = null;
  }

  #syncAttachments(conn: Connection, attach: ReadSource[]): void {
    const key = JSON.stringify(attach);
    if (key === this.#attachedKey) return;
    for (const old of JSON.parse(this.#attachedKey) as ReadSource[]) {
      conn.run("DETACH DATABASE ?", [old.name]);
    }
    for (const source of attach) {
      conn.run("ATTACH DATABASE ? AS ?", [attachUri(source), source.name]);
    }
    this.#attachedKey = key;
  }
}
