import assert from "node:assert/strict";
import {
  FIRST_RESULT,
  FUNCTION_RESULT,
  HOOK_NAMES,
  type HookName,
  type Hooks,
  isHookName,
  SYNC_ONLY,
} from "../../src/plugins/hookspecs.ts";

/** Every key of `Hooks`; the compiler rejects this object if a hook is missing or extra. */
const HOOK_KEYS: Record<keyof Hooks, true> = Object.fromEntries(
  HOOK_NAMES.map((name) => [name, true]),
) as Record<HookName, true>;

Deno.test("HOOK_NAMES lists every hook once: SPEC order, menu_links, jump_items_sql, then the 1.0a37 hooks", () => {
  assert.equal(new Set(HOOK_NAMES).size, HOOK_NAMES.length);
  assert.deepEqual(HOOK_NAMES.slice(0, 3), [
    "prepare_connection",
    "prepare_jinja2_environment",
    "extra_template_vars",
  ]);
  assert.equal(HOOK_NAMES.indexOf("menu_links"), 27);
  assert.equal(HOOK_NAMES.indexOf("jump_items_sql"), 28);
  assert.deepEqual(HOOK_NAMES.slice(29), [
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
  ]);
  assert.equal(Object.keys(HOOK_KEYS).length, 48);
});

Deno.test("the special hook sets only name real hooks", () => {
  for (const set of [FIRST_RESULT, SYNC_ONLY, FUNCTION_RESULT]) {
    for (const name of set) assert.ok(isHookName(name), name);
  }
  assert.deepEqual([...FIRST_RESULT].sort(), [
    "actor_from_request",
    "actors_from_ids",
    "forbidden",
    "handle_exception",
    "jinja2_environment_from_request",
    "render_cell",
  ]);
  assert.deepEqual([...FUNCTION_RESULT].sort(), ["asgi_wrapper", "write_wrapper"]);
});

Deno.test("isHookName accepts hooks and rejects near misses", () => {
  assert.equal(isHookName("render_cell"), true);
  assert.equal(isHookName("render_cells"), false);
  assert.equal(isHookName("toString"), false);
});
