/**
 * Watching the rows a connection changes, through SQLite's preupdate hook: called once per row
 * inserted, updated or deleted in a rowid or WITHOUT ROWID table (virtual tables and SQLite's own
 * tables excepted), before the change, with the row's old and new values. Vitrine's history of
 * writes (`db/history/`) is built on it. The hook exists only in libraries built with
 * `SQLITE_ENABLE_PREUPDATE_HOOK` (Debian's is); {@link preupdateAvailable} says whether this one was.
 *
 * @module
 */

import type { Connection } from "./connection.ts";
import { readCString, sqlite } from "./ffi.ts";
import { SQLITE_FLOAT } from "./constants.ts";
import { readSqliteValue, type SqlValue } from "./values.ts";

/** A value with its storage class told apart where JavaScript cannot: REAL `12.0` vs `12`. */
export interface Cell {
  /** The value. */
  value: SqlValue;
  /** True when SQLite stored it as REAL. */
  real: boolean;
}

/** What kind of change a row undergoes. */
export type RowOperation = "insert" | "update" | "delete";

/**
 * One row about to change. It is only valid while the listener runs: the same object describes
 * the next row, and `before` and `after` read the values of the row being changed.
 */
export interface RowChange {
  operation: RowOperation;
  /** Schema name: `main`, `temp` or an attached database. */
  schema: string;
  table: string;
  /** The rowid before (update, delete); meaningless for WITHOUT ROWID tables. */
  oldRowid: number | bigint;
  /** The rowid after (insert, update); meaningless for WITHOUT ROWID tables. */
  newRowid: number | bigint;
  /** The number of columns of the row. */
  count: number;
  /** Column `i` before the change (update, delete). */
  before(i: number): Cell;
  /** Column `i` after the change (insert, update). */
  after(i: number): Cell;
}

const OPERATIONS: Record<number, RowOperation> = { 18: "insert", 23: "update", 9: "delete" };

const HOOK = {
  parameters: ["pointer", "pointer", "i32", "pointer", "pointer", "i64", "i64"],
  result: "void",
} as const;

/** True when the loaded library has the preupdate hook. */
export function preupdateAvailable(): boolean {
  return sqlite().sqlite3_preupdate_hook !== null;
}

/**
 * Calls `listener` for every row `conn` changes until the returned function is called (which
 * removes the hook). Errors the listener throws are kept and thrown by that function: the hook
 * itself cannot fail a statement. Throws when the library has no preupdate hook.
 */
export function watchRowChanges(
  conn: Connection,
  listener: (change: RowChange) => void,
): () => void {
  const lib = sqlite();
  const hook = lib.sqlite3_preupdate_hook;
  if (hook === null) throw new Error("This SQLite library has no preupdate hook");
  const db = Deno.UnsafePointer.create(conn.pointerValue);
  const out = new BigUint64Array(1);
  const read = (
    reader: typeof lib.sqlite3_preupdate_old,
    handle: Deno.PointerValue,
    i: number,
  ): Cell => {
    if (reader!(handle, i, out) !== 0) return { value: null, real: false };
    const value = Deno.UnsafePointer.create(out[0]);
    return {
      value: readSqliteValue(value),
      real: lib.sqlite3_value_type(value) === SQLITE_FLOAT,
    };
  };
  let failure: unknown = null;
  // One change object for the whole watch, filled in for each row: the listener may use it only
  // while it runs, and a fresh object with fresh closures per row costs more than the row.
  let handle: Deno.PointerValue = null;
  const change: RowChange = {
    operation: "insert",
    schema: "main",
    table: "",
    oldRowid: 0,
    newRowid: 0,
    count: 0,
    before: (i) => read(lib.sqlite3_preupdate_old, handle, i),
    after: (i) => read(lib.sqlite3_preupdate_new, handle, i),
  };
  const callback = new Deno.UnsafeCallback(
    HOOK,
    (_ctx, pointer, op, schema, table, key1, key2) => {
      if (failure !== null) return;
      try {
        handle = pointer;
        change.operation = OPERATIONS[op];
        change.schema = readCString(schema) ?? "main";
        change.table = readCString(table) ?? "";
        change.oldRowid = rowid(key1);
        change.newRowid = rowid(key2);
        change.count = lib.sqlite3_preupdate_count!(pointer);
        listener(change);
      } catch (error) {
        failure = error;
      } finally {
        handle = null;
      }
    },
  );
  hook(db, callback.pointer, null);
  return () => {
    hook(db, null, null);
    callback.close();
    if (failure !== null) throw failure;
  };
}

function rowid(key: number | bigint): number | bigint {
  if (typeof key === "number") return key;
  const big = BigInt(key);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big;
}
