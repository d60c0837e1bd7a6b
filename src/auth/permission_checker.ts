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
 *    explicitly deny.
 * 5. `permission_allowed` hooks: the first true/false answer, in call order. Core's own answer
 *    comes last (`src/plugins/defaults/default_permissions.ts`): `execute-sql` is denied when the
 *    `default_allow_sql` setting is off.
 * 6. No opinion: the `default_` argument when given (null keeps "no opinion"), else the
 *    Permission's default (false for unknown actions).
 *
 * @module
 */

import { Forbidden } from "../http/errors.ts";
import type { Actor } from "./allow.ts";
import { allowBlockDecision, permissionsBlockDecision } from "./metadata_rules.ts";
import type { PermissionRegistry } from "./permission_registry.ts";
import { type Resource, restrictionsAllow } from "./tokens.ts";
import { requestMemo } from "../util/request_scope.ts";

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
  permissionHooks: (check: { actor: Actor | null; action: string; resource: Resource }) => Promise<
    unknown[]
  >;
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
type LoggedCheck = Omit<PermissionCheck, "when"> & { at: number };

/** Resolves permission checks against metadata, hooks, tokens, root and defaults. */
export class PermissionChecker {
  readonly #options: PermissionCheckerOptions;
  /** A ring of the last {@link CHECK_LOG_SIZE} checks; `#next` is where the next one goes. */
  readonly #log: LoggedCheck[] = [];
  #next = 0;
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
    if (result === null) {
      result = default_ !== undefined
        ? default_
        : this.#options.registry.find(action)?.default ?? false;
    }
    this.#record({
      at: Date.now(),
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
    if (answer === false || !(this.#options.registry.find(action)?.default ?? false)) {
      return "denied";
    }
    return "next";
  }

  /**
   * `ensure_permissions` decided from kept answers alone: true when it passes, the Forbidden it
   * would throw, or undefined when an answer it needs is not kept (nothing is logged then, and
   * the caller asks the long way). The anonymous visitor's checks of a page end here.
   */
  #decideFromKept(
    actor: Actor | null,
    permissions: readonly PermissionSpec[],
  ): true | Forbidden | undefined {
    if (actor) return undefined;
    const steps: [string, Resource, boolean | null][] = [];
    let outcome: true | Forbidden = true;
    for (const permission of permissions) {
      const [action, resource] = splitSpec(permission);
      const opinion = this.#keptOpinion(null, action, resource);
      if (opinion === undefined) return undefined;
      steps.push([action, resource, opinion]);
      const step = this.#step(action, opinion);
      if (step === "granted") break;
      if (step === "denied") {
        outcome = denied(action);
        break;
      }
    }
    for (const [action, resource, opinion] of steps) {
      this.#conclude(null, action, resource, null, opinion);
    }
    return outcome;
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
      permissions = options.permissions ?? visibilityChain(options.action, options.resource);
      // The anonymous actor: what it sees is not private, no second round needed.
      const known = actor === null ? this.#decideFromKept(null, permissions) : undefined;
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

  /** The most recent checks, newest first (at most {@link CHECK_LOG_SIZE}). */
  recentChecks(): PermissionCheck[] {
    const inOrder = [...this.#log.slice(this.#next), ...this.#log.slice(0, this.#next)];
    return inOrder.reverse().map(({ at, ...check }) => ({
      when: new Date(at).toISOString(),
      ...check,
    }));
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

  // Steps 1–5 of the module comment; null means nobody had an opinion.
  async #opinion(actor: Actor | null, action: string, resource: Resource) {
    const { registry, rootEnabled, permissionHooks } = this.#options;
    if (actor && "_r" in actor && !restrictionsAllow(actor._r, action, resource, registry)) {
      return false;
    }
    const metadata = this.#options.metadata() ?? {};
    const query = await this.#cannedQuery(actor, action, resource);
    const configured = allowBlockDecision(metadata, actor, action, resource, query) ??
      permissionsBlockDecision(metadata, actor, action, resource, query);
    if (configured !== null) return configured;
    if (actor?.id === "root" && rootEnabled()) return true;
    for (const answer of await permissionHooks({ actor, action, resource })) {
      if (typeof answer === "boolean") return answer;
    }
    return null;
  }

  async #cannedQuery(actor: Actor | null, action: string, resource: Resource) {
    if (!this.#options.cannedQuery || !Array.isArray(resource)) return null;
    if (action !== "view-query" && !registryTakesResource(this.#options.registry, action)) {
      return null;
    }
    return await this.#options.cannedQuery(resource[0], resource[1], actor);
  }

  #record(check: LoggedCheck): void {
    this.#log[this.#next] = check;
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
