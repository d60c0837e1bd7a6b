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

Deno.test("HOOK_NAMES lists every hook of SPEC Events once, in spec order", () => {
  assert.equal(new Set(HOOK_NAMES).size, HOOK_NAMES.length);
  assert.deepEqual(HOOK_NAMES.slice(0, 3), [
    "prepare_connection",
    "prepare_jinja2_environment",
    "extra_template_vars",
  ]);
  assert.equal(HOOK_NAMES.indexOf("get_metadata"), HOOK_NAMES.length - 3);
  assert.equal(Object.keys(HOOK_KEYS).length, 29);
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
    "render_cell",
  ]);
});

Deno.test("isHookName accepts hooks and rejects near misses", () => {
  assert.equal(isHookName("render_cell"), true);
  assert.equal(isHookName("render_cells"), false);
  assert.equal(isHookName("toString"), false);
});
