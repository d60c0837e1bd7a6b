/**
 * Tables nobody but the application may write: an authorizer that, while it is on, refuses every
 * statement that would insert, update or delete rows of the named tables, create, drop or alter
 * them, or put an index or trigger on them (the db layer protects Vitrine's own `_vitrine_history`
 * this way, `db/history/protect.ts`). It acts when a statement is compiled, which is also when
 * the triggers a statement fires are compiled into it, so a trigger of another table cannot
 * write to them either; a statement compiled before a schema change is compiled again, under it,
 * when it next runs. Names are compared as SQLite compares them, without regard to case.
 *
 * @module
 */

import { SQLITE_DENY, SQLITE_OK } from "./constants.ts";
import { check } from "./errors.ts";
import { readCString, sqlite } from "./ffi.ts";

/** Actions whose first detail is the table (or view) they act on. */
const TABLE_FIRST = new Set([
  2, // SQLITE_CREATE_TABLE
  4, // SQLITE_CREATE_TEMP_TABLE
  6, // SQLITE_CREATE_TEMP_VIEW (a view of that name would stand in for the table)
  8, // SQLITE_CREATE_VIEW
  9, // SQLITE_DELETE
  11, // SQLITE_DROP_TABLE
  13, // SQLITE_DROP_TEMP_TABLE
  15, // SQLITE_DROP_TEMP_VIEW
  17, // SQLITE_DROP_VIEW
  18, // SQLITE_INSERT
  23, // SQLITE_UPDATE
  29, // SQLITE_CREATE_VTABLE
  30, // SQLITE_DROP_VTABLE
]);

/** Actions whose second detail is the table they act on. */
const TABLE_SECOND = new Set([
  1, // SQLITE_CREATE_INDEX
  3, // SQLITE_CREATE_TEMP_INDEX
  5, // SQLITE_CREATE_TEMP_TRIGGER
  7, // SQLITE_CREATE_TRIGGER
  10, // SQLITE_DROP_INDEX
  12, // SQLITE_DROP_TEMP_INDEX
  14, // SQLITE_DROP_TEMP_TRIGGER
  16, // SQLITE_DROP_TRIGGER
  26, // SQLITE_ALTER_TABLE (the first detail is the schema)
]);

/** Actions that make a trigger: its SQL runs later, under whoever fires it. */
const MAKES_TRIGGER = new Set([5, 7]);
const ALTER_TABLE = 26;

/**
 * What the guard saw while statements were compiled, including what it could not decide then;
 * filled in as it goes.
 */
export interface GuardReport {
  /** The protected table a statement was refused for, or null. */
  refused: string | null;
  /** Triggers created meanwhile (their SQL may write to a protected table). */
  made: string[];
  /** How many `ALTER TABLE`s ran (a rename may have given a table a protected name). */
  alters: number;
  /**
   * Every table a statement compiled meanwhile creates, drops or alters, in the order they were
   * compiled (a statement of a batch is compiled just before it runs): the history's capture
   * learns from it that a name stands for another table than before (`db/history/capture.ts`).
   */
  redefined: TableEdit[];
}

/** A table's definition about to change: `schema` is `main`, `temp` or an attached database. */
export interface TableEdit {
  /** What the statement does to the table. */
  action: "create" | "drop" | "alter";
  /** The database the table belongs to. */
  schema: string;
  /** The table's name as the statement wrote it. */
  table: string;
}

const EDITS: Record<number, TableEdit["action"]> = { 2: "create", 11: "drop", 26: "alter" };

const AUTHORIZER = {
  parameters: ["pointer", "i32", "pointer", "pointer", "pointer", "pointer"],
  result: "i32",
} as const;

/** The table an authorizer call acts on, if it writes or changes one. */
function tableOf(action: number, arg1: string | null, arg2: string | null): string | null {
  if (TABLE_FIRST.has(action)) return arg1;
  if (TABLE_SECOND.has(action)) return arg2;
  return null;
}

/**
 * The guard of one connection. Its authorizer is installed on first use and then stays: setting
 * an authorizer expires every compiled statement of the connection (`sqlite3_set_authorizer`), so
 * setting it around each write made SQLite compile every statement the connection keeps again on
 * its next run. Between guarded calls it allows everything, which is what no authorizer does.
 * The callback belongs to the thread that created it.
 */
export class TableGuard {
  readonly #db: Deno.PointerValue;
  #callback: Deno.UnsafeCallback<typeof AUTHORIZER> | null = null;
  /** False until installed, and again once another authorizer took its place. */
  #installed = false;
  /** The protected tables while a guarded call runs; null between calls. */
  #tables: ReadonlySet<string> | null = null;
  #report: GuardReport | null = null;

  /** A guard for connection `db`, not installed yet. */
  constructor(db: Deno.PointerValue) {
    this.#db = db;
  }

  /** True while {@link run} runs: statements compiled now are compiled under the guard. */
  get active(): boolean {
    return this.#tables !== null;
  }

  /**
   * Runs `fn` with the guard on (no other authorizer may be installed meanwhile), writing what it
   * sees into `report`. `tables` are lower-case names. A statement compiled before is not judged
   * again unless SQLite recompiles it (a schema change does): the caller keeps statements it
   * compiled outside apart from those it compiled inside (`Connection.query`).
   */
  run<T>(tables: ReadonlySet<string>, report: GuardReport, fn: () => T): T {
    if (this.#tables !== null) throw new Error("TableGuard.run() inside itself");
    if (!this.#installed) this.#install();
    this.#tables = tables;
    this.#report = report;
    try {
      return fn();
    } finally {
      this.#tables = null;
      this.#report = null;
    }
  }

  /** Another authorizer replaced this one: the next {@link run} installs it again. */
  displaced(): void {
    this.#installed = false;
  }

  #install(): void {
    this.#callback ??= new Deno.UnsafeCallback(AUTHORIZER, (_data, action, a1, a2, a3) => {
      const tables = this.#tables;
      // Outside a guarded call, and for reads, functions and the like: nothing to look at.
      if (tables === null || !(TABLE_FIRST.has(action) || TABLE_SECOND.has(action))) {
        return SQLITE_OK;
      }
      const report = this.#report!;
      const table = tableOf(action, readCString(a1), readCString(a2));
      if (table === null) return SQLITE_OK;
      if (tables.has(table.toLowerCase())) {
        report.refused ??= table;
        return SQLITE_DENY;
      }
      if (MAKES_TRIGGER.has(action)) report.made.push(readCString(a1) ?? "");
      if (action === ALTER_TABLE) report.alters++;
      const edit = EDITS[action];
      if (edit) {
        // An alter names its database first; a create or drop third.
        const schema = readCString(action === ALTER_TABLE ? a1 : a3) ?? "main";
        report.redefined.push({ action: edit, schema, table });
      }
      return SQLITE_OK;
    });
    check(this.#db, sqlite().sqlite3_set_authorizer(this.#db, this.#callback.pointer, null));
    this.#installed = true;
  }

  /** Frees the callback; call after the connection is closed. */
  close(): void {
    this.#callback?.close();
    this.#callback = null;
    this.#installed = false;
  }
}
