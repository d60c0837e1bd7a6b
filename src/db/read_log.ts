/**
 * What every engine's `execute` reports about a read, written once: the trace and the host's
 * timing of each read, and the log line of a failed one.
 *
 * @module
 */

import type { BindParams } from "../sqlite/values.ts";
import { type ReadOutcome, traceClock, traceSql } from "../util/trace.ts";
import type { DatabaseHost } from "./host.ts";

/** Logs a read's SQL error; a hostile query string can make the SQL huge, so only its start. */
export function logSqlError(database: string, message: string, sql: string): void {
  const shown = sql.length > 500 ? `${sql.slice(0, 500)}… (${sql.length} characters)` : sql;
  console.error(`SQL error in database "${database}": ${message}\n  sql: ${shown}`);
}

/**
 * Traces a read that began at `start` (`traceClock()`) and reports its time to the host;
 * `outcome` when it did not run to its end (answered from the query cache, or interrupted).
 */
export function recordRead(
  host: DatabaseHost,
  database: string,
  sql: string,
  params: BindParams | null | undefined,
  start: number,
  outcome?: ReadOutcome,
): void {
  const end = traceClock();
  traceSql({ database, sql, params: params ?? null, start, end, outcome });
  host.observeSql?.(database, "read", end - start);
}
