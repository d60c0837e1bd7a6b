/**
 * The restriction `Connection.restricted()` puts on a connection for SQL a visitor wrote: lower
 * `sqlite3_limit` values and the visitor authorizer, left applied after the work ends (applying
 * them costs more than a small query) and taken off before the connection next does unrestricted
 * work (`ConnectionState.release`). Apart from connection.ts because this state machine is
 * the one part of a connection that outlives a call.
 *
 * @module
 */

import { setLimits, type SqlLimits, VisitorAuthorizer } from "./guard.ts";
import type { ConnectionState } from "./statement.ts";
import type { TableGuard } from "./table_guard.ts";

/** The visitor restriction of one connection: what is applied, and how deep the work is. */
export class Restriction {
  readonly #state: ConnectionState;
  /** The connection's table guard, if it made one (its authorizer gives way to ours). */
  readonly #tableGuard: () => TableGuard | undefined;
  #authorizer: VisitorAuthorizer | undefined;
  /** True while the applied restriction is for SQL the owner wrote (`run(…, true)`). */
  #owner = false;
  /** How many `run()` calls are running now (a nested call is restricted too). */
  depth = 0;
  /**
   * The limits `run()` applied, which stay applied (with the authorizer) until unrestricted
   * work comes (`release`); null when none are. Compared by identity first, then by key.
   */
  #appliedLimits: Partial<SqlLimits> | null = null;
  /** Which limits are applied: statements compiled under them are cached under this. */
  key = "";
  /** The connection's own values of the limits applied, put back by `release`. */
  #ownLimits: Partial<SqlLimits> = {};
  readonly #release = () => this.release();

  /** The restriction of the connection whose state is `state`. */
  constructor(state: ConnectionState, tableGuard: () => TableGuard | undefined) {
    this.#state = state;
    this.#tableGuard = tableGuard;
  }

  /** Runs `fn` restricted by `limits` (see `Connection.restricted`). */
  run<T>(fn: () => T, limits: Partial<SqlLimits>, owner: boolean): T {
    const outer = this.#appliedLimits;
    const outerOwner = this.#owner;
    if (limits !== outer || owner !== outerOwner) this.#apply(limits, owner);
    this.#state.release = null;
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.#state.open) {
        if (this.depth > 0) {
          // A nested call with other limits: the outer work goes on under its own.
          if (outer !== null && (this.#appliedLimits !== outer || this.#owner !== outerOwner)) {
            this.#apply(outer, outerOwner);
          }
        } else this.#state.release = this.#release;
      }
    }
  }

  #apply(limits: Partial<SqlLimits>, owner: boolean): void {
    const key = `restricted:${owner ? "owner:" : ""}${Object.entries(limits).join(",")}`;
    if (this.#appliedLimits !== null) {
      if (key === this.key) {
        this.#appliedLimits = limits;
        return;
      }
      this.release();
    }
    const db = this.#state.db;
    this.#authorizer ??= new VisitorAuthorizer(db);
    this.#ownLimits = setLimits(db, limits);
    this.#authorizer.set(true, owner);
    // One authorizer per connection at a time: the guard's goes back on at its next use.
    this.#tableGuard()?.displaced();
    this.#owner = owner;
    this.#appliedLimits = limits;
    this.key = key;
  }

  /** Takes the visitor limits and authorizer off (before unrestricted work). */
  release(): void {
    this.#state.release = null;
    if (this.#appliedLimits === null) return;
    this.#appliedLimits = null;
    this.#owner = false;
    this.key = "";
    this.#authorizer!.set(false);
    setLimits(this.#state.db, this.#ownLimits);
  }

  /** Frees the authorizer's callback (the connection is closing). */
  close(): void {
    this.#authorizer?.close();
    this.#authorizer = undefined;
  }
}
