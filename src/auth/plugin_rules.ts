/**
 * Plugin rules: what `permission_resources_sql` rows and `permission_allowed` answers say about
 * one check, decided the reference's way (Datasette 1.0a37 "How permissions are resolved"):
 *
 * - a rule is an allow or a deny at one of three scopes: `resource` (a table or query of a
 *   database), `parent` (a database) or `global` (the instance);
 * - a rule applies to a check when its scope contains the checked resource (a parent rule
 *   applies to the database's tables; a global rule to everything);
 * - the most specific scope with a rule decides, and at that scope a deny beats an allow.
 *
 * A `permission_allowed` answer is a rule at the scope of the checked resource itself: `true`
 * for `["shop", "log"]` is a resource rule.
 *
 * @module
 */

import type { Resource } from "./tokens.ts";

/** One rule a plugin contributed. */
export interface PluginRule {
  /** The database, or null for a global rule. */
  parent: string | null;
  /** The table or query, or null for a database or global rule. */
  child: string | null;
  /** Allow (true) or deny (false). */
  allow: boolean;
  /** Why, in the plugin's words. */
  reason: string | null;
  /** The plugin and hook it came from (`my-plugin permission_resources_sql`). */
  source: string;
}

/** A rule as `/-/check` explains it (the reference's `matched_rules` entries). */
export interface ExplainedRule {
  scope: Scope;
  effect: "allow" | "deny";
  source: string;
  reason: string | null;
  /** True when this rule is one of those that decided. */
  decisive: boolean;
  /** Why it did not decide, when it did not. */
  ignored_because: string | null;
}

/** The three scopes, most specific first. */
export type Scope = "resource" | "parent" | "global";

/** What the rules decide for one check, and how. */
export interface RulesDecision {
  /** True, false, or null when no rule applies. */
  allowed: boolean | null;
  /** The scope that decided, or null. */
  winning_scope: Scope | null;
  /** Every applying rule, most specific first, denies before allows. */
  matched_rules: ExplainedRule[];
}

const RANK: Record<Scope, number> = { resource: 2, parent: 1, global: 0 };

/** The scope of a rule. */
export function scopeOf(rule: Pick<PluginRule, "parent" | "child">): Scope {
  return rule.child !== null ? "resource" : rule.parent !== null ? "parent" : "global";
}

/** The scope of a checked resource (what a `permission_allowed` answer applies to). */
export function resourceScope(resource: Resource): Scope {
  if (Array.isArray(resource)) return "resource";
  return typeof resource === "string" ? "parent" : "global";
}

/** The checked resource as `(parent, child)`. */
export function resourceParts(resource: Resource): [string | null, string | null] {
  if (Array.isArray(resource)) return [resource[0], resource[1]];
  return [typeof resource === "string" ? resource : null, null];
}

/** Whether `rule` applies to `resource`. */
export function applies(rule: PluginRule, resource: Resource): boolean {
  const [parent, child] = resourceParts(resource);
  if (rule.parent === null) return rule.child === null;
  if (rule.parent !== parent) return false;
  return rule.child === null || rule.child === child;
}

/** Decides `resource` from `rules` (see the module comment). */
export function decideRules(rules: readonly PluginRule[], resource: Resource): RulesDecision {
  const matching = rules.filter((rule) => applies(rule, resource)).map((rule) => ({
    rule,
    scope: scopeOf(rule),
  }));
  matching.sort((a, b) =>
    RANK[b.scope] - RANK[a.scope] || Number(a.rule.allow) - Number(b.rule.allow)
  );
  if (!matching.length) return { allowed: null, winning_scope: null, matched_rules: [] };
  const winning_scope = matching[0].scope;
  const allowed = !matching.some(({ rule, scope }) => scope === winning_scope && !rule.allow);
  const matched_rules = matching.map(({ rule, scope }): ExplainedRule => {
    const ignored_because = scope !== winning_scope
      ? "A more specific rule matched"
      : !allowed && rule.allow
      ? "A deny rule matched at the same scope"
      : null;
    return {
      scope,
      effect: rule.allow ? "allow" : "deny",
      source: rule.source,
      reason: rule.reason,
      decisive: ignored_because === null,
      ignored_because,
    };
  });
  return { allowed, winning_scope, matched_rules };
}

/** A `permission_allowed` answer as a rule for the checked resource itself. */
export function answerRule(allow: boolean, resource: Resource, source: string): PluginRule {
  const scope = resourceScope(resource);
  return {
    parent: scope === "global" ? null : Array.isArray(resource) ? resource[0] : resource as string,
    child: scope === "resource" ? (resource as [string, string])[1] : null,
    allow,
    reason: `permission_allowed answered ${allow}`,
    source,
  };
}
