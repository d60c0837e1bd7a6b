/**
 * Example plugin: SQL functions through `prepare_connection`.
 *
 * Adds `reverse_string(text)` and the aggregate `median(value)` to every connection, so
 * `select reverse_string(name), median(score) from people` works in any query.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/sql_functions.ts`
 *
 * `prepare_connection` runs in every read worker as well as on the main thread, so it must be
 * synchronous and must not depend on module state set elsewhere.
 */
// Published plugins import the same names from the vitrine package instead of a path.
import type { HookArgs, SqlValue } from "../../mod.ts";

export const version = "0.1.0";

/** Collects one group's values; SQLite calls `step` per row, then `finalize`. */
class Median {
  #values: number[] = [];

  step(value: SqlValue): void {
    if (typeof value === "number") this.#values.push(value);
    else if (typeof value === "bigint") this.#values.push(Number(value));
  }

  finalize(): number | null {
    if (this.#values.length === 0) return null;
    const sorted = this.#values.sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}

/** Registers the functions on each new connection. */
export function prepare_connection({ conn }: HookArgs<"prepare_connection">): void {
  conn.create_function(
    "reverse_string",
    1,
    (text: SqlValue) => text === null ? null : [...String(text)].reverse().join(""),
    { deterministic: true },
  );
  conn.create_aggregate("median", 1, Median);
}
