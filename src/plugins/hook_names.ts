/**
 * The hook names as run-time values (hookspecs.ts holds their types): the list in SPEC order and
 * which hooks are first-result, synchronous, or answer with a function.
 *
 * @module
 */

import type { HookName } from "./hookspecs.ts";

/** Every hook name: SPEC order, then `menu_links` and `jump_items_sql`, then the reference's
 * other 1.0a37 hooks. */
export const HOOK_NAMES: readonly HookName[] = [
  "prepare_connection",
  "prepare_jinja2_environment",
  "extra_template_vars",
  "extra_css_urls",
  "extra_js_urls",
  "extra_body_script",
  "publish_subcommand",
  "render_cell",
  "register_output_renderer",
  "register_routes",
  "register_commands",
  "register_facet_classes",
  "register_permissions",
  "asgi_wrapper",
  "startup",
  "canned_queries",
  "actor_from_request",
  "actors_from_ids",
  "filters_from_request",
  "permission_allowed",
  "register_magic_parameters",
  "forbidden",
  "handle_exception",
  "table_actions",
  "database_actions",
  "skip_csrf",
  "get_metadata",
  "menu_links",
  "jump_items_sql",
  "register_actions",
  "permission_resources_sql",
  "track_event",
  "register_events",
  "row_actions",
  "homepage_actions",
  "view_actions",
  "query_actions",
  "top_homepage",
  "top_database",
  "top_table",
  "top_row",
  "top_query",
  "top_canned_query",
  "top_stored_query",
  "register_column_types",
  "write_wrapper",
  "register_token_handler",
  "jinja2_environment_from_request",
];

/** True when `name` is a hook name. */
export function isHookName(name: string): name is HookName {
  return HOOK_SET.has(name);
}

const HOOK_SET: ReadonlySet<string> = new Set(HOOK_NAMES);

/** Hooks where only the first non-null result is used. */
export const FIRST_RESULT: ReadonlySet<HookName> = new Set<HookName>([
  "actors_from_ids",
  "render_cell",
  "actor_from_request",
  "forbidden",
  "handle_exception",
  "jinja2_environment_from_request",
]);

/** Hooks that must answer synchronously (called with `PluginRegistry.callSync`). */
export const SYNC_ONLY: ReadonlySet<HookName> = new Set<HookName>([
  "prepare_connection",
  "get_metadata",
]);

/** Hooks whose result is itself a function, so the registry must not call it to resolve it. */
export const FUNCTION_RESULT: ReadonlySet<HookName> = new Set<HookName>([
  "asgi_wrapper",
  "write_wrapper",
]);
