/**
 * Rows inserted a batch at a time through one bound value: the batch goes to SQLite as one JSON
 * array of row arrays and `INSERT … SELECT value->>0, value->>1, … FROM json_each(?)` takes it
 * apart in C. Binding every value through its own FFI call costs about three times as much as
 * the whole insert this way (bench/import.ts).
 *
 * JSON carries SQLite's values exactly for strings, booleans, null and the numbers JSON writes
 * plainly (safe integers, finite reals that are not whole, whose shortest text SQLite reads back
 * to the same double). Anything else — a bigint, -0, a whole real beyond 2^53 (JSON would write it
 * as an integer), Infinity or NaN, text holding NUL (SQLite's JSON reader ends the string there) or
 * a lone surrogate (it would store invalid UTF-8) — sends its batch down the row-at-a-time path,
 * which binds each value as it is. So does a failed batch, so that the error names its row.
 *
 * @module
 */

/** True when JSON carries `value` to SQLite as the very value binding it would store. */
export function plainJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isSafeInteger(value)
        ? value !== 0 || 1 / value > 0
        : Number.isFinite(value) && !Number.isInteger(value);
  }
  return value === null || value === undefined;
}

// JSON.stringify writes NUL as \u0000 and a lone surrogate as \udXXX: either sends the batch
// down the row-at-a-time path. (An escaped backslash before such text only costs that too.)
const UNSAFE_ESCAPE = /\\u(?:0000|d[89a-f])/;

/** The JSON text of `rows`, or null when it would not carry them exactly (see above). */
export function rowsAsJson(rows: readonly unknown[][]): string | null {
  const json = JSON.stringify(rows);
  return UNSAFE_ESCAPE.test(json) ? null : json;
}

/** The SELECT list taking `count` values out of each row array of `json_each`. */
export function jsonColumns(count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(`value->>${i}`);
  return out.join(", ");
}
