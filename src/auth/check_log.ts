/**
 * The log of recent permission checks that `/-/permissions` shows: a fixed ring, so checking
 * costs no allocation and the log never grows. Apart from the checker because it only records
 * what the checker decided; it decides nothing.
 *
 * @module
 */

import type { Actor } from "./allow.ts";
import type { Resource } from "./tokens.ts";

/** A recorded check, for `/-/permissions`. */
export interface PermissionCheck {
  /** ISO 8601 time of the check. */
  when: string;
  actor: Actor | null;
  action: string;
  resource: Resource;
  result: boolean | null;
  /** True when no rule had an opinion and a default decided. */
  used_default: boolean;
}

/** A check as the log keeps it: the time as a number, formatted only when someone looks. */
export type LoggedCheck = Omit<PermissionCheck, "when">;

/** How many recent checks `/-/permissions` can show. */
const CHECK_LOG_SIZE = 200;

/**
 * A ring of the last {@link CHECK_LOG_SIZE} checks and the times they were made. The checks are
 * kept apart from their times so that a check decided from kept answers logs an entry it shares
 * with every other time it was made.
 */
export class CheckLog {
  readonly #log: LoggedCheck[] = [];
  readonly #logTimes = new Float64Array(CHECK_LOG_SIZE);
  /** Where the next check goes. */
  #next = 0;

  /** Logs one check made at `at` (milliseconds since the epoch). */
  record(check: LoggedCheck, at = Date.now()): void {
    this.#log[this.#next] = check;
    this.#logTimes[this.#next] = at;
    this.#next = (this.#next + 1) % CHECK_LOG_SIZE;
  }

  /** Logs checks made together, at one time. */
  recordAll(checks: readonly LoggedCheck[]): void {
    const at = Date.now();
    for (const check of checks) this.record(check, at);
  }

  /** The most recent checks, newest first (at most {@link CHECK_LOG_SIZE}). */
  recent(): PermissionCheck[] {
    const checks: PermissionCheck[] = [];
    for (let step = 1; step <= this.#log.length; step++) {
      const at = (this.#next - step + CHECK_LOG_SIZE) % CHECK_LOG_SIZE;
      const { actor, action, resource, result, used_default } = this.#log[at];
      checks.push({
        when: new Date(this.#logTimes[at]).toISOString(),
        actor,
        action,
        // A copy: the logged check may be logged again (a decision kept from an earlier request).
        resource: Array.isArray(resource) ? [resource[0], resource[1]] as const : resource,
        result,
        used_default,
      });
    }
    return checks;
  }
}
