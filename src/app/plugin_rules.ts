/**
 * The plugin rules of one permission check (auth/plugin_rules.ts explains how they decide): the
 * rows of each `permission_resources_sql` answer, run on the internal database with the named
 * parameters `:actor` (the actor as JSON), `:actor_id` and `:action` beside the plugin's own, and
 * the `permission_allowed` answer as a rule for the checked resource. That hook keeps the spec's
 * contract among its implementations, the first true or false in call order being its answer
 * (so a plugin may still grant what core's own last answer denies). Each rule names the plugin it
 * came from, for `/-/check` and `/-/rules`.
 *
 * @module
 */

import type { AppHost } from "./host.ts";
import type { Actor } from "../auth/allow.ts";
import type { Resource } from "../auth/tokens.ts";
import { answerRule } from "../auth/plugin_rules.ts";
import type { PluginRule } from "../auth/plugin_rules.ts";
import type { PermissionSQL } from "../plugins/hookspecs.ts";
import type { PluginInfo } from "../plugins/plugin_info.ts";
import { requestMemo } from "../util/request_scope.ts";
import { sqliteConnection } from "../db/engine.ts";

interface Check {
  actor: Actor | null;
  action: string;
  resource: Resource;
}

/** Every plugin rule for `check`, permission_resources_sql's first. */
export async function pluginRules(svc: AppHost, check: Check): Promise<PluginRule[]> {
  // The SQL lists every resource at once: asked once per request for an actor and action, so a
  // page checking each of its tables runs it once, not once per table.
  const rules = svc.pm.hasImpl("permission_resources_sql")
    ? [
      ...await requestMemo(
        check.actor,
        `permission_resources_sql\u0000${check.action}`,
        () => sqlRules(svc, check),
      ),
    ]
    : [];
  for (const plugin of svc.pm.implementers("permission_allowed")) {
    const answers = await svc.hooks.call("permission_allowed", {
      actor: check.actor,
      action: check.action,
      // Plugins get a fresh pair they may keep or change without touching the checker's.
      resource: typeof check.resource === "string" || !check.resource
        ? check.resource ?? null
        : [check.resource[0], check.resource[1]],
    }, { filter: only(plugin) });
    const answer = answers.find((value) => typeof value === "boolean");
    if (answer !== undefined) {
      rules.push(
        answerRule(answer as boolean, check.resource, `${plugin.name} permission_allowed`),
      );
      break;
    }
  }
  return rules;
}

/** The rows of every `permission_resources_sql` answer for the check's actor and action. */
export async function sqlRules(
  svc: AppHost,
  { actor, action }: Pick<Check, "actor" | "action">,
): Promise<PluginRule[]> {
  const rules: PluginRule[] = [];
  const internal = svc.get_internal_database();
  for (const plugin of svc.pm.implementers("permission_resources_sql")) {
    const answers = await svc.hooks.call("permission_resources_sql", { actor, action }, {
      filter: only(plugin),
    });
    const source = `${plugin.name} permission_resources_sql`;
    for (const piece of answers.flat() as PermissionSQL[]) {
      if (!piece?.sql) continue;
      const params = {
        ...piece.params,
        actor: actor === null ? null : JSON.stringify(actor),
        actor_id: actor?.id === undefined || actor.id === null ? null : String(actor.id),
        action,
      };
      // On the main thread: a few rows from a small query, asked on a permission check, are
      // cheaper here than a worker round trip, and never wait behind a busy or booting pool.
      const rows = await internal.execute_fn((conn) =>
        sqliteConnection(conn).execute(
          `select parent, child, allow, reason from (${piece.sql})`,
          params as never,
        )
          .fetchall()
      );
      for (const row of rows) {
        rules.push({
          parent: row[0] === null ? null : String(row[0]),
          child: row[1] === null ? null : String(row[1]),
          allow: Boolean(row[2]),
          reason: row[3] === null ? null : String(row[3]),
          source,
        });
      }
    }
  }
  return rules;
}

function only(plugin: PluginInfo) {
  return (candidate: PluginInfo) => candidate.name === plugin.name;
}
