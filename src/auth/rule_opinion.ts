/**
 * Steps 1–6 of a permission check (the order is in permission_checker.ts's module comment): the
 * opinion the rules give on one (actor, action, resource), or null when none has one. Apart from
 * the checker, which adds what the opinion does not: defaults, kept answers and the log.
 *
 * @module
 */

import type { Actor } from "./allow.ts";
import { allowBlockDecision, permissionsBlockDecision } from "./metadata_rules.ts";
import type { PermissionRegistry } from "./permission_registry.ts";
import { type Resource, restrictionsAllow } from "./tokens.ts";
import { answerRule, decideRules, type PluginRule, type RulesDecision } from "./plugin_rules.ts";
import { blockReason, levelAbove, type Trace } from "./check_steps.ts";

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

/**
 * Steps 1–6; null means nobody had an opinion. With `trace`, each step is written down, and the
 * plugin rules' decision copied into `explained`.
 */
export async function ruleOpinion(
  options: PermissionCheckerOptions,
  actor: Actor | null,
  action: string,
  resource: Resource,
  trace: Trace = null,
  explained?: RulesDecision,
): Promise<boolean | null> {
  const { registry, rootEnabled } = options;
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
  const defaultDeny = options.defaultDeny?.() ?? false;
  if (isRoot && defaultDeny) {
    note("root", true, "With --default-deny the root actor keeps access to everything");
    return true;
  }
  const metadata = options.metadata() ?? {};
  const query = await cannedQuery(options, actor, action, resource);
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
  const decision = decideRules(await pluginRules(options, actor, action, resource), resource);
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
    const inherited = await ruleOpinion(options, actor, above[0], above[1]);
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
async function pluginRules(
  options: PermissionCheckerOptions,
  actor: Actor | null,
  action: string,
  resource: Resource,
) {
  const { pluginRules, permissionHooks } = options;
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

async function cannedQuery(
  options: PermissionCheckerOptions,
  actor: Actor | null,
  action: string,
  resource: Resource,
) {
  if (!options.cannedQuery || !Array.isArray(resource)) return null;
  if (action !== "view-query" && !registryTakesResource(options.registry, action)) {
    return null;
  }
  return await options.cannedQuery(resource[0], resource[1], actor);
}

function registryTakesResource(registry: PermissionRegistry, action: string): boolean {
  return registry.find(action)?.takes_resource ?? false;
}
