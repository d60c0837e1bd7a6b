/**
 * What every write endpoint checks before it writes, in this order: the database, table and row
 * exist (404s that name what is missing); the actor may see them; the actor holds the write
 * action; the database accepts writes.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { Request } from "../../http/request.ts";
import type { Actor } from "../../auth/allow.ts";
import { BadRequest, DatabaseNotFound, Forbidden, NotFound } from "../../http/errors.ts";
import { tilde_decode } from "../../util/tilde.ts";
import { HistoryProtected, isProtectedTable } from "../../db/history/protect.ts";

/** A table the request names, with how its rows are keyed. */
export interface WriteTable {
  db: Database;
  table: string;
  /** Declared primary key columns; empty for rowid tables. */
  pks: string[];
}

/** A row the request names: its table and the key values from the URL. */
export interface WriteRowTarget extends WriteTable {
  keyValues: string[];
}

/** The database named by the URL; 404 "Database not found: x". */
export function targetDatabase(svc: ViewHost, request: Request): Database {
  try {
    return svc.resolve_database(request);
  } catch (error) {
    if (!(error instanceof DatabaseNotFound)) throw error;
    throw new NotFound(`Database not found: ${error.database_name}`);
  }
}

/**
 * The table named by the URL (views do not count); 404 "Table not found: t", and a 403 for
 * Vitrine's own history table, which no one writes.
 */
export async function targetTable(svc: ViewHost, request: Request): Promise<WriteTable> {
  const db = targetDatabase(svc, request);
  const table = tilde_decode(request.url_vars.table ?? "");
  requireUnprotected(db, table);
  if (!(await db.table_exists(table))) throw new NotFound(`Table not found: ${table}`);
  return { db, table, pks: await db.primary_keys(table) };
}

/** The row named by the URL; 400 for the wrong number of key values, 404 when it is missing. */
export async function targetRow(svc: ViewHost, request: Request): Promise<WriteRowTarget> {
  const target = await targetTable(svc, request);
  const keyValues = (request.url_vars.pks ?? "").split(",").map(tilde_decode);
  const keys = target.pks.length ? target.pks : ["rowid"];
  if (keyValues.length !== keys.length) {
    throw new BadRequest("URL row identifier does not match the primary key for this table");
  }
  const { db } = target;
  // SQLite's own SQL as it always was; other engines quote through their dialect.
  const quote = db.engine === "sqlite"
    ? (name: string) => `[${name.replaceAll("]", "]]")}]`
    : (name: string) => db.dialect.quoteIdentifier(name);
  const from = db.engine === "sqlite" ? quote(target.table) : db.dialect.tableName(target.table);
  const where = keys.map((key) => `${quote(key)} = ?`).join(" and ");
  const found = await db.execute(`select 1 from ${from} where ${where}`, keyValues, {
    log_sql_errors: false,
  }).catch((error) => {
    // A key that is no value of the column's type ("abc" for an integer): no such record.
    if (db.engine !== "sqlite" && error?.name === "QueryError") return { rows: [] };
    throw error;
  });
  if (!found.rows.length) throw new NotFound(`Record not found: ${keyValues.join(",")}`);
  return { ...target, keyValues };
}

/**
 * Refuses actors who may not see the table: a write must not reach what `allow` blocks hide (the
 * reference forgets this). Token restrictions are left out here: they only narrow the actions a
 * token may use, and the action check that follows applies them.
 */
export async function requireVisible(
  svc: ViewHost,
  actor: Actor | null,
  database: string,
  table: string | null,
): Promise<void> {
  let unrestricted = actor;
  if (actor && "_r" in actor) {
    const { _r: _restrictions, ...rest } = actor;
    unrestricted = rest as Actor;
  }
  const [visible] = table === null
    ? await svc.check_visibility(unrestricted, { action: "view-database", resource: database })
    : await svc.check_visibility(unrestricted, {
      action: "view-table",
      resource: [database, table],
    });
  if (!visible) throw new Forbidden("Permission denied", { title: "Permission denied" });
}

/** Whether `actor` holds `action` on the table (or the database when `table` is null). */
export async function allowed(
  svc: ViewHost,
  actor: Actor | null,
  action: string,
  database: string,
  table: string | null,
): Promise<boolean> {
  const resource = table === null ? database : [database, table] as [string, string];
  return Boolean(await svc.permission_allowed(actor, action, resource));
}

/** Throws a 403 with `message` unless `actor` holds every one of `actions`. */
export async function requireActions(
  svc: ViewHost,
  request: Request,
  actions: string[],
  database: string,
  table: string | null,
  message = `Permission denied: need ${actions.join(" and ")}`,
): Promise<void> {
  for (const action of actions) {
    if (!(await allowed(svc, request.actor, action, database, table))) {
      throw new Forbidden(message, { title: "Permission denied" });
    }
  }
}

/** True for Vitrine's own history table of a SQLite database (`db/history/protect.ts`). */
export function protectedTable(db: Database, table: string): boolean {
  return db.engine === "sqlite" && isProtectedTable(table);
}

/** A 403 for a write to Vitrine's own history table, whatever the actor's permissions. */
export function requireUnprotected(db: Database, table: string): void {
  if (protectedTable(db, table)) throw new HistoryProtected();
}

/** Immutable databases refuse every write with a 403. */
export function requireMutable(db: Database): void {
  if (!db.is_mutable) {
    throw new Forbidden("Database is immutable", { title: "Database is immutable" });
  }
}
