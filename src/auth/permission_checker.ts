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
 * @module
 */

import { Forbidden } from "../http/errors.ts";
import type { Actor } from "./allow.ts";
import { allowBlockDecision, permissionsBlockDecision } from "./metadata_rules.ts";
import type { PermissionRegistry } from "./permission_registry.ts";
import { type Resource, restrictionsAllow } from "./tokens.ts";
import { requestMemo } from "../util/request_scope.ts";
import { answerRule, decideRules, type PluginRule, type RulesDecision } from "./plugin_rules.ts";
import {
  blockReason,
  type CheckExplanation,
  type CheckStep,
  levelAbove,
  type Trace,
} from "./check_steps.ts";

export type { CheckExplanation, CheckStep };

/** One entry of `ensure_permissions`: an action, or an (action, resource) pair. */
export type PermissionSpec = string | readonly [string, Resource];

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

/** What the checker reads from the service; functions so it always sees current values. */
export interface PermissionCheckerOptions {
  registry: PermissionRegistry;
  /** The merged metadata object. */
  metadata: () => Record<string, unknown>;
  /** The answers of the `permission_allowed` hooks, non-null, in call order. */
  permissionHooks?: (check: { actor: Actor | null; action: string; resource: Resource }) => Promise<
    unknown[]
  >;
  /** The rules plugins give for a check (`permission_resources_sql`, `permission_allowed`). */
  pluginRules?: (
    check: { actor: Actor | null; action: string; resource: Resource },
  ) => Promise<PluginRule[]>;
  /** `--default-deny`: nothing is allowed that no rule grants. */
  defaultDeny?: () => boolean;
  /**
   * A key that stays the same for as long as the anonymous actor's answers cannot change (the
   * metadata, settings, permissions and hooks they come from are fixed), or null while they may
   * differ from one call to the next (a plugin answers, or supplies metadata or canned queries).
   * With a key, those answers are kept across requests.
   */
  anonymousAnswersKey?: () => string | null;
  /** Whether the service was started with `--root`. */
  rootEnabled: () => boolean;
  /** A canned query's definition including plugin-provided ones; defaults to metadata. */
  cannedQuery?: (
    database: string,
    name: string,
    actor: Actor | null,
  ) => Record<string, unknown> | null | Promise<Record<string, unknown> | null>;
}

/** How many recent checks `/-/permissions` can show. */
const CHECK_LOG_SIZE = 200;

/** Most anonymous answers kept (one per action and resource asked about). */
const ANONYMOUS_ANSWERS = 10_000;

/** A check as the log keeps it: the time as a number, formatted only when someone looks. */
type LoggedCheck = Omit<PermissionCheck, "when">;

/** A decision from kept answers: it passes, or the action denied; and the checks made. */
interface KeptDecision {
  outcome: true | { denied: string };
  checks: readonly LoggedCheck[];
}

/** Resolves permission checks against metadata, hooks, tokens, root and defaults. */
export class PermissionChecker {
  readonly #options: PermissionCheckerOptions;
  /**
   * A ring of the last {@link CHECK_LOG_SIZE} checks and the times they were made; `#next` is
   * where the next one goes. The checks are kept apart from their times so that a check decided
   * from kept answers logs an entry it shares with every other time it was made.
   */
  readonly #log: LoggedCheck[] = [];
  readonly #logTimes = new Float64Array(CHECK_LOG_SIZE);
  #next = 0;
  /**
   * The anonymous visitor's visibility of each resource, decided from kept answers, with the
   * checks that decided it: while {@link PermissionCheckerOptions.anonymousAnswersKey} stays,
   * every page of a table answers the same way, so it is decided once.
   */
  #keptVisibility: { key: string; chains: Map<string, KeptDecision> } | null = null;
  /** The anonymous actor's answers, kept while `anonymousAnswersKey()` returns `key`. */
  #anonymous: { key: string; answers: Map<string, boolean | null> } | null = null;

  constructor(options: PermissionCheckerOptions) {
    this.#options = options;
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
    const fixed = actor ? null : this.#options.anonymousAnswersKey?.() ?? null;
    const opinion = fixed !== null
      ? await this.#anonymousOpinion(fixed, key, action, resource)
      : await requestMemo(
        actor ?? null,
        `permission\u0000${key}`,
        () => this.#opinion(actor ?? null, action, resource),
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
    this.#record({
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
    const opinion = await this.#opinion(actor, action, resource, steps, rules);
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
    const at = Date.now();
    for (const check of decision.checks) this.#record(check, at);
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
        const kept = this.#anonymousVisibility(chainAction, options.resource ?? null);
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

  /**
   * The anonymous visitor's visibility decision for `action` on `resource` from kept answers
   * (see {@link #keptVisibility}), or undefined when it cannot be decided from them yet.
   */
  #anonymousVisibility(action: string, resource: Resource): KeptDecision | undefined {
    const fixed = this.#options.anonymousAnswersKey?.() ?? null;
    if (fixed === null) return undefined;
    if (this.#keptVisibility?.key !== fixed) {
      this.#keptVisibility = { key: fixed, chains: new Map() };
    }
    const chains = this.#keptVisibility.chains;
    const key = opinionKey(action, resource);
    let decision = chains.get(key);
    if (decision === undefined) {
      decision = this.#keptDecision(visibilityChain(action, resource));
      if (decision === undefined) return undefined;
      if (chains.size >= ANONYMOUS_ANSWERS) chains.clear();
      chains.set(key, decision);
    }
    return decision;
  }

  async #checkVisibilityLater(
    actor: Actor | null,
    permissions: readonly PermissionSpec[],
  ): Promise<[boolean, boolean]> {
    if (!(await this.#passes(actor, permissions))) return [false, false];
    if (actor === null) return [true, false];
    return [true, !(await this.#passes(null, permissions))];
  }

  /** The most recent checks, newest first (at most {@link CHECK_LOG_SIZE}). */
  recentChecks(): PermissionCheck[] {
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
    if (actor || this.#anonymous === null) return undefined;
    const fixed = this.#options.anonymousAnswersKey?.() ?? null;
    if (fixed === null || this.#anonymous.key !== fixed) return undefined;
    return this.#anonymous.answers.get(opinionKey(action, resource));
  }

  /** The anonymous actor's opinion, computed once while `fixed` stays the answers' key. */
  async #anonymousOpinion(fixed: string, key: string, action: string, resource: Resource) {
    if (this.#anonymous?.key !== fixed) this.#anonymous = { key: fixed, answers: new Map() };
    const answers = this.#anonymous.answers;
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const opinion = await this.#opinion(null, action, resource);
    if (this.#anonymous?.key === fixed) {
      // One entry per table, query and database asked about: bounded all the same.
      if (answers.size >= ANONYMOUS_ANSWERS) answers.clear();
      answers.set(key, opinion);
    }
    return opinion;
  }

  // Steps 1–6 of the module comment; null means nobody had an opinion. With `trace`, each step
  // is written down, and the plugin rules' decision copied into `explained`.
  async #opinion(
    actor: Actor | null,
    action: string,
    resource: Resource,
    trace: Trace = null,
    explained?: RulesDecision,
  ): Promise<boolean | null> {
    const { registry, rootEnabled } = this.#options;
    const note = (step: string, answer: boolean | null, reason: string) =>
      trace?.push({
        step,
        answer: answer === null ? "no opinion" : answer ? "allow" : "deny",
        reason,
      });
    if (actor && "_r" in actor) {
      if (!restrictionsAllow(actor._r, action, resource, registry)) {
        note("token restrictions", false, "The token's restrictions do not list this action here");
        return false;
      }
      note("token restrictions", null, "The token's restrictions list this action here");
    }
    const isRoot = actor?.id === "root" && rootEnabled();
    const defaultDeny = this.#options.defaultDeny?.() ?? false;
    if (isRoot && defaultDeny) {
      note("root", true, "With --default-deny the root actor keeps access to everything");
      return true;
    }
    const metadata = this.#options.metadata() ?? {};
    const query = await this.#cannedQuery(actor, action, resource);
    const allowBlock = allowBlockDecision(metadata, actor, action, resource, query);
    if (trace) note("allow block", allowBlock, blockReason("allow", allowBlock));
    if (allowBlock !== null) return allowBlock;
    const permissionsBlock = permissionsBlockDecision(metadata, actor, action, resource, query);
    if (trace) {
      note("permissions block", permissionsBlock, blockReason("permissions", permissionsBlock));
    }
    if (permissionsBlock !== null) return permissionsBlock;
    if (isRoot) {
      note("root", true, "The root actor may do anything no rule above denied");
      return true;
    }
    const decision = decideRules(await this.#pluginRules(actor, action, resource), resource);
    if (explained) Object.assign(explained, decision);
    if (trace) {
      const reason = decision.allowed === null
        ? "No plugin rule applies"
        : `The ${decision.winning_scope} rules decide: ${
          decision.matched_rules.filter((rule) => rule.decisive).map((rule) =>
            `${rule.effect} by ${rule.source}${rule.reason ? ` (${rule.reason})` : ""}`
          ).join("; ")
        }`;
      note("plugin rules", decision.allowed, reason);
    }
    if (decision.allowed !== null) return decision.allowed;
    const above = defaultDeny ? levelAbove(action, resource) : null;
    if (above) {
      const inherited = await this.#opinion(actor, above[0], above[1]);
      note(
        "level above",
        inherited,
        `With --default-deny, ${action} takes the answer of ${above[0]}${
          above[1] ? ` on ${JSON.stringify(above[1])}` : ""
        }`,
      );
      return inherited;
    }
    return null;
  }

  /** The plugin rules for one check: `pluginRules`, then `permission_allowed` answers. */
  async #pluginRules(actor: Actor | null, action: string, resource: Resource) {
    const { pluginRules, permissionHooks } = this.#options;
    const rules = pluginRules ? [...await pluginRules({ actor, action, resource })] : [];
    if (permissionHooks) {
      // The spec's contract among these hooks: the first true or false in call order.
      const answers = await permissionHooks({ actor, action, resource });
      const answer = answers.find((value) => typeof value === "boolean");
      if (answer !== undefined) {
        rules.push(answerRule(answer as boolean, resource, "permission_allowed"));
      }
    }
    return rules;
  }

  async #cannedQuery(actor: Actor | null, action: string, resource: Resource) {
    if (!this.#options.cannedQuery || !Array.isArray(resource)) return null;
    if (action !== "view-query" && !registryTakesResource(this.#options.registry, action)) {
      return null;
    }
    return await this.#options.cannedQuery(resource[0], resource[1], actor);
  }

  #record(check: LoggedCheck, at = Date.now()): void {
    this.#log[this.#next] = check;
    this.#logTimes[this.#next] = at;
    this.#next = (this.#next + 1) % CHECK_LOG_SIZE;
  }
}

/** An action and its resource as a memo key. */
function opinionKey(action: string, resource: Resource): string {
  return `${action}\u0000${resourceKey(resource)}`;
}

/** A resource as part of a memo key: none, a database, or a (database, child) pair. */
function resourceKey(resource: Resource): string {
  if (resource === null || resource === undefined) return "";
  if (typeof resource === "string") return `s\u0000${resource}`;
  return `a\u0000${JSON.stringify(resource)}`;
}

function registryTakesResource(registry: PermissionRegistry, action: string): boolean {
  return registry.find(action)?.takes_resource ?? false;
}

function splitSpec(permission: PermissionSpec): [string, Resource] {
  if (typeof permission === "string") return [permission, null];
  if (Array.isArray(permission) && permission.length === 2 && typeof permission[0] === "string") {
    return [permission[0], permission[1] ?? null];
  }
  throw new TypeError(
    `Permissions must be action strings or [action, resource] pairs, got ${
      JSON.stringify(permission)
    }`,
  );
}

function visibilityChain(action: string | undefined, resource: Resource): PermissionSpec[] {
  if (!action) throw new TypeError("check_visibility needs an action or a list of permissions");
  const database = typeof resource === "string" ? resource : resource?.[0];
  if ((action === "view-table" || action === "view-query") && Array.isArray(resource)) {
    return [[action, resource], ["view-database", resource[0]], "view-instance"];
  }
  if (action === "view-database" && database !== undefined) {
    return [["view-database", database], "view-instance"];
  }
  return [resource ? [action, resource] : action];
}

/** The 403 for a denied action: a sentence for people that still names the action for code. */
function denied(action: string): Forbidden {
  return new Forbidden(`Permission denied: ${action}`, { title: "Permission denied" });
}
