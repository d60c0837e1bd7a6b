/**
 * The write operations behind `Database.execute_write*`, on the write connection. Each runs in
 * one transaction and rolls back on error, so a failed write changes nothing.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Cursor } from "../sqlite/cursor.ts";
import type { BindParams } from "../sqlite/values.ts";

/** What a write reports, like Python's cursor. */
export interface WriteResult {
  /** Rows changed (summed over `execute_write_many`); -1 when not applicable. */
  rowcount: number;
  /** Rowid of the last inserted row. */
  lastrowid: number | bigint;
}

// Statements SQLite refuses inside a transaction, or that manage transactions themselves.
const NO_TRANSACTION =
  /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(?:vacuum|attach|detach|pragma|begin|commit|end|rollback|savepoint|release)\b/i;

/** True for statements that must run outside a transaction (PRAGMA, VACUUM, ATTACH, BEGIN…). */
export function needsOwnTransaction(sql: string): boolean {
  return NO_TRANSACTION.test(sql);
}

let savepoints = 0;

/**
 * Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back if it throws. Inside a transaction
 * already open (Vitrine opens one for managed writes, `database.ts`), it uses a SAVEPOINT, so a
 * failure still undoes exactly what `body` did.
 */
export function inTransaction<T>(conn: Connection, body: () => T): T {
  if (conn.inTransaction) {
    const name = `vitrine_${++savepoints}`;
    conn.exec(`SAVEPOINT ${name}`);
    try {
      const result = body();
      conn.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      try {
        conn.exec(`ROLLBACK TO ${name}`);
        conn.exec(`RELEASE ${name}`);
      } catch { /* the caller rethrows the original error */ }
      throw error;
    }
  }
  // IMMEDIATE takes the write lock at once (the busy timeout waits for it there), so a
  // transaction that reads before writing cannot fail half-way with SQLITE_BUSY_SNAPSHOT.
  conn.exec("BEGIN IMMEDIATE");
  try {
    const result = body();
    conn.exec("COMMIT");
    return result;
  } catch (error) {
    rollbackQuietly(conn);
    throw error;
  }
}

/** Ends any open transaction without letting a failed ROLLBACK hide the error being reported. */
function rollbackQuietly(conn: Connection): void {
  try {
    if (conn.inTransaction) conn.exec("ROLLBACK");
  } catch { /* the caller rethrows the original error */ }
}

/** One statement; returns the binding's Python-style cursor (rows, rowcount, lastrowid). */
export function writeOne(conn: Connection, sql: string, params?: BindParams): Cursor {
  if (NO_TRANSACTION.test(sql)) return conn.execute(sql, params);
  return inTransaction(conn, () => conn.execute(sql, params));
}

/** Several `;`-separated statements, atomically unless the script manages transactions. */
export function writeScript(conn: Connection, sql: string): WriteResult {
  const before = conn.totalChanges;
  try {
    inTransaction(conn, () => conn.exec(sql));
  } catch (error) {
    // A script with its own BEGIN/COMMIT (or VACUUM) cannot be wrapped; run it as written.
    if (!(error instanceof Error) || !/within a transaction/.test(error.message)) throw error;
    try {
      conn.exec(sql);
    } catch (scriptError) {
      // A failure after the script's own BEGIN would leave its transaction open, and every
      // later write would fail with "database table is locked".
      rollbackQuietly(conn);
      throw scriptError;
    }
  }
  return { rowcount: conn.totalChanges - before, lastrowid: conn.lastInsertRowid };
}

/** One statement per parameter set, all in one transaction. */
export function writeMany(
  conn: Connection,
  sql: string,
  paramsSeq: Iterable<BindParams>,
): WriteResult {
  return inTransaction(conn, () => {
    const statement = conn.prepare(sql);
    let rowcount = 0;
    try {
      for (const params of paramsSeq) {
        statement.bind(params);
        while (statement.step()) { /* drain rows, e.g. RETURNING */ }
        statement.reset();
        rowcount += conn.changes;
      }
    } finally {
      statement.finalize();
    }
    return { rowcount, lastrowid: conn.lastInsertRowid };
  });
}
