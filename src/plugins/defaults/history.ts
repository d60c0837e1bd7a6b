/**
 * The history of writes (`db/history/`, `views/history/`) as a default plugin on the public
 * hooks: its pages and revert endpoint through `register_routes`, its `revert-change` action
 * (denied unless granted) through `register_permissions`, no table page for a file's
 * `_vitrine_history` (`permission_allowed`), and "History" entries in the table and
 * database menus of actors who may revert changes (the row page links to its row's history for
 * every visitor).
 */
import type { HookArgs } from "../hookspecs.ts";
import { hookimpl } from "../hookimpl.ts";
import { HISTORY_TABLE } from "../../db/history/capture.ts";
import { HISTORY_PERMISSIONS } from "../../auth/permission_registry.ts";
import { HISTORY_ROUTES } from "../../views/history/routes.ts";

/** The history pages and `/-/history/-/revert`. */
export function register_routes(): typeof HISTORY_ROUTES {
  return HISTORY_ROUTES;
}

/** `revert-change`. */
export function register_permissions(): typeof HISTORY_PERMISSIONS {
  return HISTORY_PERMISSIONS;
}

/**
 * No table page for a file's own `_vitrine_history` (asked last, so configuration can still grant
 * it): it holds the values of every table's changes, private tables' too, which the history pages
 * only show to those who may see the table concerned.
 */
export const permission_allowed = hookimpl(
  ({ action, resource }: HookArgs<"permission_allowed">): boolean | null =>
    action === "view-table" && Array.isArray(resource) && resource[1] === HISTORY_TABLE
      ? false
      : null,
  { trylast: true },
);

/** "History" of the table. */
export async function table_actions(
  { svc, actor, database, table }: HookArgs<"table_actions">,
) {
  if (!(await mayRevert(svc, actor, database))) return null;
  return [{
    href: `${svc.urls.table(database, table)}/-/history`,
    label: "History",
    description: "Changes made to this table through Vitrine",
  }];
}

/** "History" of the database. */
export async function database_actions(
  { svc, actor, database }: HookArgs<"database_actions">,
) {
  if (!(await mayRevert(svc, actor, database))) return null;
  return [{
    href: `${svc.urls.database(database)}/-/history`,
    label: "History",
    description: "Recent changes made through Vitrine, which can be undone",
  }];
}

/**
 * The menus offer the history to those who can act on it (anyone who may see a table can read
 * its history; row pages link to theirs for everyone).
 */
async function mayRevert(
  svc: HookArgs<"table_actions">["svc"],
  actor: HookArgs<"table_actions">["actor"],
  database: string,
): Promise<boolean> {
  if (!svc.databases.get(database)?.is_mutable) return false;
  return Boolean(await svc.permission_allowed(actor, "revert-change", database));
}
