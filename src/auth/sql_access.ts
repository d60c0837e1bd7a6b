/**
 * Custom SQL (`?sql=`, `_where=`) must not read tables the actor may not view. `execute-sql`
 * alone would let `select * from secret` past every table-level `allow` block, and with
 * `--crossdb` a `/_memory` query reaches every attached database — even unqualified, because
 * SQLite searches attached schemas for unknown names.
 *
 * The check is lexical and errs on the side of refusing: a query is refused when any identifier
 * in it (quoted or not, any case, even inside a string or comment) names a table or view the
 * actor may not see, or when it reads the schema tables while such tables exist. SQL cannot build
 * identifiers at run time, so a table can only be read by writing its name.
 *
 * @module
 */

import type { Actor } from "./allow.ts";
import { Forbidden } from "../http/errors.ts";

/** The slice of a database these checks read. */
export interface SqlAccessDatabase {
  name: string;
  is_memory: boolean;
  table_names(): Promise<string[]>;
  view_names(): Promise<string[]>;
}

/** The slice of the service these checks read. */
export interface SqlAccessHost {
  options: { crossdb?: boolean };
  databases: ReadonlyMap<string, SqlAccessDatabase>;
  check_visibility(
    actor: Actor | null,
    options: { action: string; resource: [string, string] },
  ): Promise<[boolean, boolean]>;
  permission_allowed(
    actor: Actor | null,
    action: string,
    resource: string,
  ): Promise<boolean | null>;
}

/** Tables whose rows describe every other table. */
const SCHEMA_TABLES = ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "pragma_table_list"];

/** SQLite's identifier characters: letters, digits, `_`, `$` and anything non-ASCII. */
const IDENTIFIER_CHAR = "[A-Za-z0-9_$\\u0080-\\uFFFF]";

/** Does `sql` contain `name` as a whole identifier (case-insensitive, like SQLite)? */
export function mentionsIdentifier(sql: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<!${IDENTIFIER_CHAR})${escaped}(?!${IDENTIFIER_CHAR})`, "iu").test(sql);
}

/** The databases a query on `db` can read: itself, plus the attached files for `/_memory`. */
function reachable(host: SqlAccessHost, db: SqlAccessDatabase): SqlAccessDatabase[] {
  if (!(host.options.crossdb && db.name === "_memory")) return [db];
  // Mirrors the --crossdb ATTACH list: file databases, at most ten.
  const attached = [...host.databases.values()].filter((other) => !other.is_memory).slice(0, 10);
  return [db, ...attached.filter((other) => other !== db)];
}

/**
 * Throws Forbidden when `sql`, run on `db`, could read a table or view `actor` may not see.
 *
 * @throws {Forbidden}
 */
export async function ensureSqlTablesVisible(
  host: SqlAccessHost,
  actor: Actor | null,
  db: SqlAccessDatabase,
  sql: string,
): Promise<void> {
  for (const target of reachable(host, db)) {
    const attached = target !== db;
    // An attached database whose own SQL access is denied is off limits as a whole.
    const sqlDenied = attached &&
      await host.permission_allowed(actor, "execute-sql", target.name) === false;
    if (sqlDenied && mentionsIdentifier(sql, target.name)) {
      throw new Forbidden(`You do not have permission to query the database "${target.name}"`);
    }
    let anyHidden = false;
    for (const name of [...await target.table_names(), ...await target.view_names()]) {
      const [visible] = sqlDenied ? [false] : await host.check_visibility(actor, {
        action: "view-table",
        resource: [target.name, name],
      });
      if (visible) continue;
      anyHidden = true;
      if (mentionsIdentifier(sql, name)) {
        throw new Forbidden(`You do not have permission to view the table "${name}"`);
      }
    }
    if (anyHidden && SCHEMA_TABLES.some((table) => mentionsIdentifier(sql, table))) {
      throw new Forbidden("You do not have permission to read the schema of this database");
    }
  }
}
