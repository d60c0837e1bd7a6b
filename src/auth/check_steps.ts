/**
 * The steps of a permission check as `/-/check` explains them (permission_checker.ts runs them),
 * and the two rules of `--default-deny` and the configuration blocks that need words.
 *
 * @module
 */

import type { Resource } from "./tokens.ts";
import type { RulesDecision } from "./plugin_rules.ts";

/** One step of a check as `/-/check` shows it. */
export interface CheckStep {
  /** Which rule: `token restrictions`, `allow block`, `permissions block`, `root`, ... */
  step: string;
  /** What it answered. */
  answer: "allow" | "deny" | "no opinion";
  /** Why, for people. */
  reason: string;
}

/** A check explained: every step in order, and the one that decided. */
export interface CheckExplanation {
  action: string;
  allowed: boolean;
  /** The steps taken, in order; the last one with an answer decided. */
  steps: CheckStep[];
  /** The step that decided (`default` when none had an opinion). */
  decided_by: string;
  /** The plugin rules' most specific scope that had a rule, if any. */
  winning_scope: RulesDecision["winning_scope"];
  /** The plugin rules that applied (the reference's `matched_rules`). */
  matched_rules: RulesDecision["matched_rules"];
}

/** Where a traced check writes its steps; null when not traced. */
export type Trace = CheckStep[] | null;

/** With --default-deny, the check a viewing action with no opinion inherits, or null. */
export function levelAbove(action: string, resource: Resource): [string, Resource] | null {
  const database = Array.isArray(resource) ? resource[0] : resource;
  if (action === "view-instance") return null;
  if (action === "view-database" || action === "view-database-download") {
    return ["view-instance", null];
  }
  if ((action === "view-table" || action === "view-query") && database) {
    return ["view-database", database];
  }
  return null;
}

/** Why a configuration block answered as it did, for people. */
export function blockReason(kind: "allow" | "permissions", answer: boolean | null): string {
  const what = kind === "allow" ? "An allow block" : "A permissions block";
  if (answer === null) return `No ${kind} block of the configuration names this action here`;
  return `${what} of the configuration ${answer ? "matches" : "does not match"} this actor`;
}
