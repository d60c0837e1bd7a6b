/**
 * Runs a write endpoint's work inside the `write_wrapper` hooks and the history's recording: on
 * SQLite on the database's single write connection, through its queue (`execute_write_fn`); on
 * an engine with row writes of its own (PostgreSQL) in the transaction each of them opens
 * (`runRowWrites`). A write refused because of the data is the data layer's `RowWriteError`,
 * already a 400 with the engine's message; a database that cannot be written becomes a 403 here.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import {
  type DatabaseEngine as Database,
  type RowWrites,
  sqliteConnection,
  type TableWrites,
  type WriteScope,
} from "../../db/engine.ts";
import type { WriteConnection } from "../../db/row_writes.ts";
import { DatabaseNotMutable } from "../../db/errors.ts";
import { AlterTableEvent, type Event } from "../../plugins/events.ts";
import { wrapWrite } from "../../plugins/write_wrappers.ts";
import { BadRequest, Forbidden } from "../../http/errors.ts";
import type { ChangeContext } from "../../db/history/store.ts";
import { protectHistory } from "../../db/history/protect.ts";
import { inManagedTransaction } from "../../db/write_lock.ts";
import { withForeignKeysOff } from "../../db/table_rebuild.ts";
import { Response } from "../../http/response.ts";
import { type ColumnTypes, jsonBodyText, markIntegralReals } from "../../render/json.ts";

/**
 * `fn(conn)` on the write queue of `db`, inside a transaction the database opens (so a wait for
 * another process's write never holds up this thread), wrapped by the `write_wrapper` hooks;
 * resolves with its result once the events the wrappers queued were sent. This is the one place
 * every write made through Vitrine passes, so it is where the history records the rows the write
 * changed (`db/history/`), in the write's own transaction, and where the history table is kept
 * out of the write's reach (`db/history/protect.ts`). `reverts` marks a revert's records
 * with the changes they undid; `history: false` is for schema changes (an alter's rebuild copies
 * every row, which is no change of data). `foreignKeysOff` runs the transaction with foreign keys
 * off (a rebuild drops and makes again a table whose cascades must not fire), which SQLite only
 * takes outside a transaction: set before it opens, back after it ends, the wrappers and checks
 * still inside it, so that nothing refuses the write once it committed.
 */
export async function runWrite<T>(
  svc: ViewHost,
  request: Request | null,
  db: Database,
  fn: (conn: WriteConnection) => T,
  { transaction = true, reverts, history = true, foreignKeysOff = false }: {
    transaction?: boolean;
    reverts?: ReadonlyMap<string, number>;
    history?: boolean;
    foreignKeysOff?: boolean;
  } = {},
): Promise<T> {
  // Its work is SQLite's (a synchronous write connection); other engines go through
  // `runRowWrites` / `runTableWrites`, and a path that has none there says so.
  if (db.engine !== "sqlite") {
    throw new BadRequest(`This kind of write is not available on ${db.engine}`);
  }
  const wrappers = svc.hooks.has("write_wrapper")
    ? await svc.hooks.call("write_wrapper", {
      database: db.name,
      request,
      transaction: transaction || foreignKeysOff,
    })
    : [];
  const recording = history
    ? await svc.history.recording(db, changeContext(db, request, reverts))
    : null;
  const events: Event[] = [];
  try {
    const work = async (conn: WriteConnection) => {
      recording?.start(conn);
      try {
        // Vitrine's own history is out of the write's reach; its records are written after.
        const result = await wrapWrite(
          wrappers,
          conn,
          events,
          () => protectHistory(conn, () => fn(conn)),
        );
        recording?.finish(conn);
        return result;
      } catch (error) {
        recording?.abort();
        throw error;
      }
    };
    const result = await db.execute_write_fn(
      (engineConn) => {
        const conn = sqliteConnection(engineConn);
        if (!foreignKeysOff) return work(conn);
        return withForeignKeysOff(conn, () =>
          inManagedTransaction(conn, work, {
            timeoutMs: Number(svc.setting("write_lock_timeout_ms") ?? 0),
            label: db.name,
          }));
      },
      { transaction: transaction && !foreignKeysOff },
    ) as T;
    await recording?.committed();
    for (const event of events) await svc.track_event(event);
    return result;
  } catch (error) {
    throw immutableForbidden(error);
  }
}

/**
 * `write(writes)` on an engine whose row writes open their own transactions (`db.row_writes`:
 * PostgreSQL), each of them inside the `write_wrapper` hooks and, unless `history` is false, the
 * history's recording, as `runWrite` does on SQLite: the wrappers run in the write's transaction
 * with its connection, the rows it changed are recorded once it committed, and the events the
 * wrappers queued are sent after that. `reverts` marks a revert's records.
 */
export function runRowWrites<T>(
  svc: ViewHost,
  request: Request | null,
  db: Database,
  write: (writes: RowWrites) => Promise<T>,
  { reverts, history = true }: { reverts?: ReadonlyMap<string, number>; history?: boolean } = {},
): Promise<T> {
  return runScoped(
    svc,
    request,
    db,
    history,
    reverts,
    (scope) => write(db.row_writes!.within(scope)),
  );
}

/**
 * `write(writes)` with such an engine's table writes (`db.table_writes`: `/-/create`, `/-/alter`),
 * inside the `write_wrapper` hooks and, with `history` (a create's rows), the history's recording.
 * Schema changes are not recorded (on SQLite an alter's rebuild is not either).
 */
export function runTableWrites<T>(
  svc: ViewHost,
  request: Request | null,
  db: Database,
  write: (writes: TableWrites) => Promise<T>,
  { history = false }: { history?: boolean } = {},
): Promise<T> {
  return runScoped(
    svc,
    request,
    db,
    history,
    undefined,
    (scope) => write(db.table_writes!.within(scope)),
  );
}

async function runScoped<T>(
  svc: ViewHost,
  request: Request | null,
  db: Database,
  history: boolean,
  reverts: ReadonlyMap<string, number> | undefined,
  write: (scope: WriteScope) => Promise<T>,
): Promise<T> {
  const wrappers = svc.hooks.has("write_wrapper")
    ? await svc.hooks.call("write_wrapper", { database: db.name, request, transaction: true })
    : [];
  const recording = history
    ? await svc.history.rowRecording(db, changeContext(db, request, reverts))
    : null;
  const events: Event[] = [];
  try {
    const result = await write({
      around: (conn, inner) => wrapWrite(wrappers, conn, events, inner),
      record: recording ? (records) => recording.record(records) : undefined,
      // What SQLite's core wrapper tells by comparing its schema table, the engine tells here.
      altered: (table, before_schema, after_schema) =>
        events.push(
          new AlterTableEvent({
            actor: request?.actor ?? null,
            database: db.name,
            table,
            before_schema,
            after_schema,
          }),
        ),
    });
    await recording?.committed();
    for (const event of events) await svc.track_event(event);
    return result;
  } catch (error) {
    throw immutableForbidden(error);
  }
}

/**
 * Work a request does once its write committed (keeping the column types of a table it made, in
 * the internal database): the write cannot be taken back, so a failure here must not answer as if
 * it had failed, which would make a client send it again (a part of an upload twice). The failure
 * is logged and returned, `what` went wrong and why, for the answer's `warnings`; null when the
 * work was done.
 */
export async function afterCommit(what: string, work: () => Promise<void>): Promise<string | null> {
  try {
    await work();
    return null;
  } catch (error) {
    // "Try again" (a busy database's advice) would read as advice to send the write again.
    const reason = (error instanceof Error ? error.message : String(error))
      .replace(/\s*Try again\.?$/, "");
    const warning = `The write was made, but ${what}: ${reason}`;
    console.error(warning);
    return warning;
  }
}

function immutableForbidden(error: unknown): unknown {
  if (error instanceof DatabaseNotMutable) {
    return new Forbidden("Database is immutable", { cause: error });
  }
  return error;
}

const requestIds = new WeakMap<Request, string>();

/** The id history files a request's changes under: one per request, however many writes it makes. */
export function requestId(request: Request | null): string {
  if (request === null) return crypto.randomUUID();
  let id = requestIds.get(request);
  if (!id) requestIds.set(request, id = crypto.randomUUID());
  return id;
}

function changeContext(
  db: Database,
  request: Request | null,
  reverts: ReadonlyMap<string, number> | undefined,
): ChangeContext {
  return {
    database: db.name,
    actor: request?.actor ?? null,
    time: new Date().toISOString(),
    request_id: requestId(request),
    request: request ? `${request.method} ${request.path}` : null,
    reverts,
  };
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

/**
 * A JSON answer holding rows read back after a write, written as the read API writes rows: a
 * whole number in a REAL column is `12.0`, not `12`.
 */
export async function rowsResponse(
  db: Database,
  table: string,
  body: Record<string, unknown>,
  status = 200,
): Promise<Response> {
  const types: ColumnTypes = {};
  for (const column of await db.table_column_details(table)) {
    types[String(column.name)] = String(column.type ?? "");
  }
  const mark = (row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    const [values] = markIntegralReals(columns, [Object.values(row)], types);
    return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
  };
  const marked = { ...body };
  if (Array.isArray(body.rows)) marked.rows = body.rows.map(mark);
  if (body.row && typeof body.row === "object") {
    marked.row = mark(body.row as Record<string, unknown>);
  }
  return new Response(jsonBodyText(marked), {
    status,
    content_type: "application/json; charset=utf-8",
  });
}
