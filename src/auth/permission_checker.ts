/**
 * Permission checks: `permission_allowed`, `ensure_permissions`, `check_visibility`, and the log
 * of recent checks shown by `/-/permissions`.
 *
 * `permission_allowed(actor, action, resource, default_)` answers with the first rule that has an
 * opinion, in this order (API-DETAILS §15, the spec-era model):
 *
 * 1. Token restrictions: an actor carrying `_r` is denied any action its restrictions do not list.
 *    Restrictions can only deny, so they are checked first and never grant.
 * 2. The metadata `allow` block guarding the action at its own level: instance `allow` for
 *    `view-instance`, database `allow` for `view-database`, table `allow` for `view-table`, canned
 *    query `allow` for `view-query`, and `allow_sql` (database, then instance) for `execute-sql`.
 * 3. Metadata `permissions:` blocks naming the action, most specific first: table or canned query,
 *    then database, then instance.
 * 4. Root: with `--root`, the actor `{"id": "root"}` may do everything the rules above did not
 *    explicitly deny. With `--default-deny`, root comes first: it keeps access to everything.
 * 5. Plugin rules, decided together (plugin_rules.ts): the rows of `permission_resources_sql`
 *    and the answer of `permission_allowed` (the first true/false in call order, as the spec
 *    says, which is a rule for the checked resource itself). The most
 *    specific scope with a rule decides, a deny beating an allow there. Core's own answer is one
 *    of them (`src/plugins/defaults/default_permissions.ts`): `execute-sql` is denied when the
 *    `default_allow_sql` setting is off.
 * 6. No opinion: with `--default-deny`, a viewing action takes the answer for the level above it
 *    (a table's `view-table` that of its database's `view-database`, and that of
 *    `view-instance`); then the `default_` argument when given (null keeps "no opinion"), else the
 *    Permission's default (false for unknown actions, and for every action with
 *    `--default-deny`).
 *
 * `explain()` runs the same steps for `/-/check` and says which one decided.
 *
 * The steps themselves are in rule_opinion.ts; this file adds defaults, the answers kept for the
 * anonymous visitor (anonymous_answers.ts) and the log of recent checks (check_log.ts).
 *
 * @module
 */

import { Forbidden } from "../http/errors.ts";
import type { Actor } from "./allow.ts";
import type { Resource } from "./tokens.ts";
import { requestMemo } from "../util/request_scope.ts";
import type { RulesDecision } from "./plugin_rules.ts";
import type { CheckExplanation, CheckStep } from "./check_steps.ts";
import { CheckLog, type LoggedCheck, type PermissionCheck } from "./check_log.ts";
import { AnonymousAnswers, type KeptDecision } from "./anonymous_answers.ts";
import { type PermissionCheckerOptions, ruleOpinion } from "./rule_opinion.ts";
import {
  denied,
  opinionKey,
  type PermissionSpec,
  splitSpec,
  visibilityChain,
} from "./permission_specs.ts";

export type {
  CheckExplanation,
  CheckStep,
  PermissionCheck,
  PermissionCheckerOptions,
  PermissionSpec,
};

/** Resolves permission checks against metadata, hooks, tokens, root and defaults. */
export class PermissionChecker {
  readonly #options: PermissionCheckerOptions;
  /** The recent checks `/-/permissions` shows. */
  readonly #log = new CheckLog();
  /** The anonymous actor's answers and visibility, kept while the answers' key stays. */
  readonly #anonymous: AnonymousAnswers;

  constructor(options: PermissionCheckerOptions) {
    this.#options = options;
    this.#anonymous = new AnonymousAnswers(() => options.anonymousAnswersKey?.() ?? null);
  }

  /**
   * True, false, or (when `default_` is null and nobody has an opinion) null.
   *
   * @example
   * ```ts
   * await checker.permission_allowed({ id: "alice" }, "view-table", ["data", "people"]);
   * ```
   */
  permission_allowed(
    actor: Actor | null,
    action: string,
    resource: Resource = null,
    default_?: boolean | null,
  ): Promise<boolean | null> {
    try {
      const kept = this.#keptOpinion(actor, action, resource ?? null);
      if (kept !== undefined) {
        return Promise.resolve(this.#conclude(actor, action, resource ?? null, default_, kept));
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#permissionAllowedLater(actor, action, resource ?? null, default_);
  }

  async #permissionAllowedLater(
    actor: Actor | null,
    action: string,
    resource: Resource,
    default_?: boolean | null,
  ): Promise<boolean | null> {
    // Asked again within one request (a page checks the same table for its view, its menus and
    // its links), the same question gets the first answer without calling the hooks again.
    const key = opinionKey(action, resource);
    const fixed = actor ? null : this.#anonymous.key();
    const opinion = fixed !== null
      ? await this.#anonymous.opinion(
        fixed,
        key,
        () => ruleOpinion(this.#options, null, action, resource),
      )
      : await requestMemo(
        actor ?? null,
        `permission\u0000${key}`,
        () => ruleOpinion(this.#options, actor ?? null, action, resource),
      );
    return this.#conclude(actor, action, resource, default_, opinion);
  }

  /** Applies the default to an opinion and logs the check; returns the result. */
  #conclude(
    actor: Actor | null,
    action: string,
    resource: Resource,
    default_: boolean | null | undefined,
    opinion: boolean | null,
  ): boolean | null {
    let result = opinion;
    if (result === null) result = default_ !== undefined ? default_ : this.#defaultOf(action);
    this.#log.record({
      actor: actor ?? null,
      action,
      resource,
      result,
      used_default: opinion === null,
    });
    return result;
  }

  /**
   * Check each permission in turn: an explicit grant returns at once, an explicit denial throws;
   * with no opinion the permission's default applies and a false default throws.
   *
   * @throws {Forbidden} naming the denied action
   */
  ensure_permissions(actor: Actor | null, permissions: readonly PermissionSpec[]): Promise<void> {
    try {
      const known = this.#decideFromKept(actor, permissions);
      if (known === true) return Promise.resolve();
      if (known !== undefined) return Promise.reject(known);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#ensureLater(actor, permissions);
  }

  async #ensureLater(actor: Actor | null, permissions: readonly PermissionSpec[]): Promise<void> {
    for (const permission of permissions) {
      const [action, resource] = splitSpec(permission);
      const answer = await this.permission_allowed(actor, action, resource, null);
      const step = this.#step(action, answer);
      if (step === "granted") return;
      if (step === "denied") throw denied(action);
    }
  }

  /**
   * What one answer means for `ensure_permissions`: an explicit grant ends the walk, an explicit
   * denial fails it, and with no opinion the action's default fails it or moves on to the next.
   */
  #step(action: string, answer: boolean | null): "granted" | "denied" | "next" {
    if (answer === true) return "granted";
    if (answer === false || !this.#defaultOf(action)) return "denied";
    return "next";
  }

  /** What an action gets when nothing has an opinion: its default, or false with default-deny. */
  #defaultOf(action: string): boolean {
    if (this.#options.defaultDeny?.()) return false;
    return this.#options.registry.find(action)?.default ?? false;
  }

  /**
   * One check explained for `/-/check`: the steps of the module comment in order, what each
   * answered and which decided. Nothing is logged or kept.
   */
  async explain(
    actor: Actor | null,
    action: string,
    resource: Resource,
  ): Promise<CheckExplanation> {
    const steps: CheckStep[] = [];
    const rules: RulesDecision = { allowed: null, winning_scope: null, matched_rules: [] };
    const opinion = await ruleOpinion(this.#options, actor, action, resource, steps, rules);
    const allowed = opinion ?? this.#defaultOf(action);
    const decided = [...steps].reverse().find((step) => step.answer !== "no opinion");
    if (opinion === null) {
      steps.push({
        step: "default",
        answer: allowed ? "allow" : "deny",
        reason: this.#options.defaultDeny?.()
          ? "No rule had an opinion and --default-deny denies everything not granted"
          : `No rule had an opinion: the default of ${action} is ${allowed ? "allow" : "deny"}`,
      });
    }
    return {
      action,
      allowed,
      steps,
      decided_by: opinion === null ? "default" : decided?.step ?? "default",
      winning_scope: rules.winning_scope,
      matched_rules: rules.matched_rules,
    };
  }

  /**
   * `ensure_permissions` decided from kept answers alone, logged: true when it passes, the
   * Forbidden it would throw, or undefined when an answer it needs is not kept (nothing is logged
   * then, and the caller asks the long way). The anonymous visitor's checks of a page end here.
   */
  #decideFromKept(
    actor: Actor | null,
    permissions: readonly PermissionSpec[],
  ): true | Forbidden | undefined {
    const decision = actor ? undefined : this.#keptDecision(permissions);
    if (decision === undefined) return undefined;
    this.#logDecision(decision);
    return decision.outcome === true ? true : denied(decision.outcome.denied);
  }

  /** What {@link #decideFromKept} decides, and the checks that decided it, without logging. */
  #keptDecision(permissions: readonly PermissionSpec[]): KeptDecision | undefined {
    const checks: LoggedCheck[] = [];
    let outcome: KeptDecision["outcome"] = true;
    for (const permission of permissions) {
      const [action, resource] = splitSpec(permission);
      const opinion = this.#keptOpinion(null, action, resource);
      if (opinion === undefined) return undefined;
      // Logged as `#conclude` logs a check made without a default: an opinion of none is null.
      checks.push({
        actor: null,
        action,
        resource,
        result: opinion,
        used_default: opinion === null,
      });
      const step = this.#step(action, opinion);
      if (step === "granted") break;
      if (step === "denied") {
        outcome = { denied: action };
        break;
      }
    }
    return { outcome, checks };
  }

  #logDecision(decision: KeptDecision): void {
    this.#log.recordAll(decision.checks);
  }

  /**
   * `[visible, private]`: can `actor` see the resource, and is it hidden from anonymous users?
   * Without `permissions`, `view-table`/`view-query` check the chain view-table → view-database →
   * view-instance, and `view-database` checks view-database → view-instance.
   */
  check_visibility(
    actor: Actor | null,
    options: { action?: string; resource?: Resource; permissions?: readonly PermissionSpec[] },
  ): Promise<[boolean, boolean]> {
    let permissions: readonly PermissionSpec[];
    try {
      // The anonymous actor: what it sees is not private, no second round needed. Its view of a
      // resource's chain is decided once; a list of permissions given is walked each time.
      const chainAction = actor === null && !options.permissions ? options.action : undefined;
      if (chainAction) {
        const kept = this.#anonymous.visibility(
          chainAction,
          options.resource ?? null,
          (permissions) => this.#keptDecision(permissions),
        );
        if (kept !== undefined) {
          this.#logDecision(kept);
          return Promise.resolve([kept.outcome === true, false]);
        }
      }
      permissions = options.permissions ?? visibilityChain(options.action, options.resource);
      // Not decided from kept answers above: the same answers cannot decide it here either.
      const known = actor === null && !chainAction
        ? this.#decideFromKept(null, permissions)
        : undefined;
      if (known !== undefined) {
        return Promise.resolve(known === true ? [true, false] : [false, false]);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#checkVisibilityLater(actor, permissions);
  }

  async #checkVisibilityLater(
    actor: Actor | null,
    permissions: readonly PermissionSpec[],
  ): Promise<[boolean, boolean]> {
    if (!(await this.#passes(actor, permissions))) return [false, false];
    if (actor === null) return [true, false];
    return [true, !(await this.#passes(null, permissions))];
  }

  /** The most recent checks, newest first (at most 200). */
  recentChecks(): PermissionCheck[] {
    return this.#log.recent();
  }

  async #passes(actor: Actor | null, permissions: readonly PermissionSpec[]): Promise<boolean> {
    try {
      await this.ensure_permissions(actor, permissions);
      return true;
    } catch (error) {
      if (error instanceof Forbidden) return false;
      throw error;
    }
  }

  /**
   * The anonymous actor's kept opinion of (action, resource), or undefined when none is kept
   * (another actor, no key, or not asked yet under this key).
   */
  #keptOpinion(
    actor: Actor | null,
    action: string,
    resource: Resource,
  ): boolean | null | undefined {
    if (actor) return undefined;
    return this.#anonymous.kept(action, resource);
  }
}
