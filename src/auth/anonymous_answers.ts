/**
 * The anonymous visitor's permission answers, kept across requests while the things they come
 * from cannot change (`PermissionCheckerOptions.anonymousAnswersKey`): every page of a public
 * table asks the same questions. Apart from the checker because it only keeps answers; the
 * checker decides what they mean.
 *
 * @module
 */

import type { Resource } from "./tokens.ts";
import type { LoggedCheck } from "./check_log.ts";
import { opinionKey, type PermissionSpec, visibilityChain } from "./permission_specs.ts";

/** Most anonymous answers kept (one per action and resource asked about). */
const ANONYMOUS_ANSWERS = 10_000;

/** A decision from kept answers: it passes, or the action denied; and the checks made. */
export interface KeptDecision {
  outcome: true | { denied: string };
  checks: readonly LoggedCheck[];
}

/** The anonymous actor's kept opinions and visibility decisions, under the answers' key. */
export class AnonymousAnswers {
  readonly #key: () => string | null;
  /**
   * The anonymous visitor's visibility of each resource, decided from kept answers, with the
   * checks that decided it: while the key stays, every page of a table answers the same way, so
   * it is decided once.
   */
  #keptVisibility: { key: string; chains: Map<string, KeptDecision> } | null = null;
  /** The anonymous actor's answers, kept while the key function returns `key`. */
  #anonymous: { key: string; answers: Map<string, boolean | null> } | null = null;

  /** Answers kept while `key()` returns the same string; none while it returns null. */
  constructor(key: () => string | null) {
    this.#key = key;
  }

  /** The answers' key now, or null while they may change from one call to the next. */
  key(): string | null {
    return this.#key();
  }

  /** The kept opinion of (action, resource), or undefined when none is kept under the key. */
  kept(action: string, resource: Resource): boolean | null | undefined {
    if (this.#anonymous === null) return undefined;
    const fixed = this.#key();
    if (fixed === null || this.#anonymous.key !== fixed) return undefined;
    return this.#anonymous.answers.get(opinionKey(action, resource));
  }

  /** The opinion kept under `key`, or `compute()`'s, kept while `fixed` stays the answers' key. */
  async opinion(
    fixed: string,
    key: string,
    compute: () => Promise<boolean | null>,
  ): Promise<boolean | null> {
    if (this.#anonymous?.key !== fixed) this.#anonymous = { key: fixed, answers: new Map() };
    const answers = this.#anonymous.answers;
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const opinion = await compute();
    if (this.#anonymous?.key === fixed) {
      // One entry per table, query and database asked about: bounded all the same.
      if (answers.size >= ANONYMOUS_ANSWERS) answers.clear();
      answers.set(key, opinion);
    }
    return opinion;
  }

  /**
   * The visibility decision for `action` on `resource`, kept once `decide` could make it from
   * kept answers, or undefined when it cannot be decided from them yet.
   */
  visibility(
    action: string,
    resource: Resource,
    decide: (permissions: readonly PermissionSpec[]) => KeptDecision | undefined,
  ): KeptDecision | undefined {
    const fixed = this.#key();
    if (fixed === null) return undefined;
    if (this.#keptVisibility?.key !== fixed) {
      this.#keptVisibility = { key: fixed, chains: new Map() };
    }
    const chains = this.#keptVisibility.chains;
    const key = opinionKey(action, resource);
    let decision = chains.get(key);
    if (decision === undefined) {
      decision = decide(visibilityChain(action, resource));
      if (decision === undefined) return undefined;
      if (chains.size >= ANONYMOUS_ANSWERS) chains.clear();
      chains.set(key, decision);
    }
    return decision;
  }
}
