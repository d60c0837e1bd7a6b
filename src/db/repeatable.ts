/**
 * Whether reading a view gives the same rows every time its tables hold the same data: the
 * test a view's pages pass before their answers are cached or carry an `ETag`.
 * A view may call `random()`, read the clock (`datetime('now')`, `current_timestamp`) or call a
 * plugin's function that does either; its SQL text would have to be parsed, views within views
 * followed, to find out. SQLite has done that already: the program `EXPLAIN` prints names every
 * function the view calls, views within it included, and `pragma_function_list` says which
 * functions are deterministic (plugins' too, as they registered them).
 *
 * @module
 */

import type { SqlRunner } from "./introspect.ts";
import type { Row } from "./results.ts";
import { quoteSqlIdentifier } from "../util/sql.ts";

/** SQLite's `SQLITE_DETERMINISTIC` flag, as `pragma_function_list` reports it. */
const SQLITE_DETERMINISTIC = 0x800;

/**
 * The date and time functions: deterministic by SQLite's flags, but they read the clock when
 * given "now" or no argument at all.
 */
const CLOCK_FUNCTIONS = new Set([
  "date",
  "time",
  "datetime",
  "julianday",
  "unixepoch",
  "strftime",
  "timediff",
]);

/** A function call's `P4` in an `EXPLAIN` listing: `name(argument count)`. */
const CALL = /^(.+)\((-?\d+)\)$/;

/**
 * A `pragma_function_list` row (name, narg, flags, type, builtin) of a function that gives the
 * same answer for the same arguments: a scalar registered as deterministic, or one of SQLite's
 * own aggregate and window functions (`count`, `sum`, `row_number`…: SQLite does not flag them,
 * but they depend on the rows alone). A plugin's aggregate may keep state of its own: not it.
 */
function isRepeatableFunction(row: Row): boolean {
  if ((Number(row[2]) & SQLITE_DETERMINISTIC) !== 0) return true;
  return (row[3] === "a" || row[3] === "w") && Number(row[4]) === 1;
}

/** True when `sql` calls `strftime` with one argument (or none): the current time, formatted. */
export function hasOneArgumentStrftime(sql: string): boolean {
  const call = /strftime\s*\(/iy;
  for (let i = 0; i < sql.length; i++) {
    if (QUOTES[sql[i]]) {
      i = skipQuoted(sql, i);
      continue;
    }
    call.lastIndex = i;
    if (!call.test(sql) || /[\w$]/.test(sql[i - 1] ?? "")) continue;
    let depth = 0;
    let commas = 0;
    for (let j = call.lastIndex; j < sql.length; j++) {
      const c = sql[j];
      if (QUOTES[c]) j = skipQuoted(sql, j);
      else if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) break;
        depth--;
      } else if (c === "," && depth === 0) commas++;
    }
    if (commas === 0) return true;
    i = call.lastIndex - 1;
  }
  return false;
}

/** What closes each kind of quoted string or identifier SQLite accepts. */
const QUOTES: Record<string, string> = { "'": "'", '"': '"', "`": "`", "[": "]" };

/** Index of the quote that closes the one at `start` (a doubled quote stays inside). */
function skipQuoted(sql: string, start: number): number {
  const close = QUOTES[sql[start]];
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === close) {
      if (close !== "]" && sql[i + 1] === close) {
        i += 2;
        continue;
      }
      return i;
    }
    i++;
  }
  return i;
}

/** True when every read of view `name` gives the same rows for the same data (see above). */
export function viewIsRepeatable(run: SqlRunner, name: string): Promise<boolean> {
  return selectIsRepeatable(run, `select * from ${quoteSqlIdentifier(name)}`);
}

/**
 * True when the read-only statement `sql` gives the same rows every time the data is the same
 * (see above): custom SQL whose answers may be kept and shared (`db/query_cache.ts`). False for
 * SQL that does not compile.
 */
export async function selectIsRepeatable(run: SqlRunner, sql: string): Promise<boolean> {
  let program;
  try {
    program = await run(`explain ${sql}`);
  } catch {
    return false; // SQL that does not compile is not cached either
  }
  const calls = new Map<string, Set<number>>();
  for (const row of program) {
    const opcode = String(row[1]);
    const p4 = row[5];
    if (typeof p4 !== "string") continue;
    // The clock, read through a "now" argument (any spelling SQLite accepts).
    if (opcode.startsWith("String") && p4.trim().toLowerCase() === "now") return false;
    if (!opcode.includes("Func") && !opcode.startsWith("Agg")) continue;
    const call = CALL.exec(p4);
    if (!call) continue;
    const [, fn, argc] = call;
    const key = fn.toLowerCase();
    // Called without arguments (`date()`: today): no first argument register (P2 is 0).
    if (CLOCK_FUNCTIONS.has(key) && Number(row[3]) === 0) return false;
    if (!calls.has(key)) calls.set(key, new Set());
    calls.get(key)!.add(Number(argc));
  }
  if (calls.size === 0) return true;
  // `strftime(format)` alone formats the current time, and the program does not show how many
  // arguments a call has: any view of the file written that way makes strftime a clock here.
  if (calls.has("strftime")) {
    if (hasOneArgumentStrftime(sql)) return false;
    const views = await run("select sql from sqlite_master where type = 'view'");
    if (views.some((row) => hasOneArgumentStrftime(String(row[0] ?? "")))) return false;
  }
  const listed = await run(
    `select name, narg, flags, type, builtin from pragma_function_list where name in (${
      [...calls.keys()].map(() => "?").join(", ")
    })`,
    [...calls.keys()],
  );
  for (const [fn, argcs] of calls) {
    for (const argc of argcs) {
      // The entry for this argument count, or the one taking any number of arguments.
      const entries = listed.filter((row) =>
        String(row[0]).toLowerCase() === fn && (row[1] === argc || row[1] === -1)
      );
      if (!entries.length || !entries.every(isRepeatableFunction)) return false;
    }
  }
  return true;
}
