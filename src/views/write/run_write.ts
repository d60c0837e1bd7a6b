/**
 * Runs a write endpoint's work on the database's single write connection, through its queue
 * (`execute_write_fn`). A write SQLite refused because of the data is the data layer's
 * `RowWriteError`, already a 400 with SQLite's message; a database that cannot be written becomes
 * a 403 here.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Database } from "../../db/database.ts";
import type { WriteConnection } from "../../db/row_writes.ts";
import { DatabaseNotMutable } from "../../db/errors.ts";
import { Forbidden } from "../../http/errors.ts";

/** `fn(conn)` on the write queue of `db`; resolves with its result. */
export async function runWrite<T>(db: Database, fn: (conn: WriteConnection) => T): Promise<T> {
  try {
    return await db.execute_write_fn(fn) as T;
  } catch (error) {
    if (error instanceof DatabaseNotMutable) {
      throw new Forbidden("Database is immutable", { cause: error });
    }
    throw error;
  }
}

/**
 * The editing forms of table and row pages (static/write.js) send `x-vitrine-flash: 1`: they
 * move to another page after a write, and this message is shown there. API clients do not send
 * it and get no message cookie.
 */
export function flash(svc: ViewHost, request: Request, message: string): void {
  if (request.headers["x-vitrine-flash"]) svc.add_message(request, message, svc.INFO);
}

/** "1 row", "3 rows". */
export function rowsText(count: number): string {
  return count === 1 ? "1 row" : `${count} rows`;
}
