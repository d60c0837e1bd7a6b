/**
 * The history table is Vitrine's record of the writes made through it, so only Vitrine writes it:
 * a request's write runs with every statement that would write to `_vitrine_history`, create,
 * drop or alter it, or put an index or trigger on it refused (`sqlite/table_guard.ts`), whatever
 * permissions the actor holds, root included, whichever path the SQL came by (write API, write
 * SQL, canned queries, alter, drop). Two things the guard cannot refuse while a statement is
 * compiled are checked after the write, before it commits: a table renamed to the history's
 * name, and a trigger whose SQL names it (it would write under whoever fires it later).
 * Reading it stays subject to the usual permissions. The reference keeps its own tables out of
 * reach altogether (its internal database is no served database); here the table may live in a
 * served file (`history: database`), so every write is kept away from it instead.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { GuardReport, TableEdit } from "../../sqlite/table_guard.ts";
import { StatusError } from "../../util/errors.ts";
import { HISTORY_TABLE } from "./capture.ts";

const PROTECTED: ReadonlySet<string> = new Set([HISTORY_TABLE]);

/** A write that would have changed the history table: a 403, whoever asked. */
export class HistoryProtected extends StatusError {
  override name = "HistoryProtected";
  /** Builds the 403 explaining whose table it is. */
  constructor(options: ErrorOptions = {}) {
    super(
      403,
      `${HISTORY_TABLE} is Vitrine's record of the changes made through it: ` +
        "only Vitrine writes it, so it cannot be written, altered or dropped, " +
        "whatever the permissions",
      { ...options, title: "Vitrine's history is read-only" },
    );
  }
}

/** True when `table` is a name only Vitrine may write (SQLite compares names without case). */
export function isProtectedTable(table: string): boolean {
  return PROTECTED.has(table.toLowerCase());
}

/** The guard's report of each connection inside {@link protectHistory} now. */
const active = new WeakMap<Connection, GuardReport>();

/**
 * The tables the statements of the write running on `conn` inside {@link protectHistory} created,
 * dropped or altered so far, in order (for the history's capture); null outside it.
 */
export function tableEdits(conn: Connection): readonly TableEdit[] | null {
  return active.get(conn)?.redefined ?? null;
}

/**
 * Runs `fn` (a request's write, inside its transaction) with the history table out of its reach;
 * throws {@link HistoryProtected} instead of whatever error the refusal caused. Calls may nest
 * (a dry run checks its statements before its savepoint rolls them back): the inner one checks
 * what happened in its own span, under the outer one's guard.
 */
export function protectHistory<T>(conn: Connection, fn: () => T): T {
  const outer = active.get(conn);
  const report: GuardReport = outer ?? { refused: null, made: [], alters: 0, redefined: [] };
  const [made, alters] = [report.made.length, report.alters];
  const before = historyObjects(conn);
  let result: T;
  try {
    if (outer) result = fn();
    else {
      active.set(conn, report);
      result = conn.guardTables(PROTECTED, report, fn);
    }
  } catch (error) {
    if (report.refused !== null) throw new HistoryProtected({ cause: error });
    throw error;
  } finally {
    if (!outer) active.delete(conn);
  }
  if (report.refused !== null) throw new HistoryProtected();
  if (report.alters > alters && historyObjects(conn) !== before) throw new HistoryProtected();
  if (report.made.length > made && namesHistory(conn, report.made.slice(made))) {
    throw new HistoryProtected();
  }
  return result;
}

/** The objects named after the history table or on it (its indexes), as one string. */
function historyObjects(conn: Connection): string {
  const { rows } = conn.query(
    `select type, name from sqlite_master where lower(name) = ?1 or lower(tbl_name) = ?1
    union all
    select type, name from sqlite_temp_master where lower(name) = ?1 or lower(tbl_name) = ?1
    order by 1, 2`,
    [HISTORY_TABLE],
  );
  return JSON.stringify(rows);
}

/** True when one of the triggers `names` mentions the history table in its SQL. */
function namesHistory(conn: Connection, names: string[]): boolean {
  const placeholders = names.map(() => "?").join(", ");
  const pattern = `%${HISTORY_TABLE.replaceAll("_", "\\_")}%`;
  const { rows } = conn.query(
    `select 1 from (select type, name, sql from sqlite_master union all
      select type, name, sql from sqlite_temp_master)
    where type = 'trigger' and name in (${placeholders}) and sql like ? escape '\\'`,
    [...names, pattern],
  );
  return rows.length > 0;
}
