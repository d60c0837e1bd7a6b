/**
 * Every hook called while a page is built — actor_from_request, permission_allowed,
 * extra_template_vars, render_cell, extra_body_script — may throw or never answer: the page is a
 * 500 naming the plugin (cut off after `hook_time_limit_ms` when it hangs), no stack trace
 * reaches the client, and the next request is served as usual. (plugin_failures_test.ts covers
 * plugin views; a synchronous infinite loop cannot be interrupted, see docs/security.md.)
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

/** The failing hook and how it fails, read by the plugin on every call ("" = behave). */
const control = globalThis as { vitrineHookFailure?: string };

const PLUGIN = `
const failing = (hook) => {
  const [name, mode] = (globalThis.vitrineHookFailure ?? "").split(":");
  if (name !== hook) return null;
  if (mode === "throw") throw new Error("the plugin broke in " + hook);
  return new Promise(() => {});
};
export function actor_from_request() { return failing("actor_from_request"); }
export function permission_allowed() { return failing("permission_allowed"); }
export function extra_template_vars() { return failing("extra_template_vars"); }
export function render_cell() { return failing("render_cell"); }
export function extra_body_script() { return failing("extra_body_script"); }
`;

const HOOKS = [
  "actor_from_request",
  "permission_allowed",
  "extra_template_vars",
  "render_cell",
  "extra_body_script",
];

function failingService() {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-hooks-" });
  Deno.writeTextFileSync(`${dir}/fragile.ts`, PLUGIN);
  return shopService({ plugins_dir: dir, settings: { hook_time_limit_ms: 300 } });
}

async function failingWith<T>(failure: string, fn: () => Promise<T>): Promise<T> {
  const error = console.error;
  console.error = () => {};
  control.vitrineHookFailure = failure;
  try {
    return await fn();
  } finally {
    control.vitrineHookFailure = "";
    console.error = error;
  }
}

for (const mode of ["throw", "hang"]) {
  Deno.test(`each hook called while rendering a page: one that ${mode}s is a 500, then all is well`, async () => {
    await using svc = failingService();
    // The table page calls every one of these hooks (render_cell once per cell).
    assert.equal((await svc.client.get("/shop/products")).status, 200);
    for (const hook of HOOKS) {
      const page = await failingWith(`${hook}:${mode}`, () => svc.client.get("/shop/products"));
      assert.equal(page.status, 500, `${hook}: ${page.text.slice(0, 300)}`);
      const why = mode === "throw"
        ? `the plugin broke in ${hook}`
        : `Plugin (&quot;|")fragile(&quot;|") did not answer the ${hook} hook within 300 ms`;
      assert.match(page.text, new RegExp(why), `${hook}: ${page.text.slice(0, 500)}`);
      assert.doesNotMatch(page.text, /\n\s+at |fragile\.ts/, hook);
      const json = await failingWith(
        `${hook}:${mode}`,
        () => svc.client.get("/shop/products.json", { headers: { accept: "application/json" } }),
      );
      // JSON pages resolve the actor and check permissions, but render no template or cells.
      if (hook === "actor_from_request" || hook === "permission_allowed") {
        assert.equal(json.status, 500, `${hook} (JSON): ${json.text.slice(0, 300)}`);
        assert.equal(json.json().ok, false);
        assert.match(json.json().error, new RegExp(why.replaceAll('(&quot;|")', '"')));
      } else {
        assert.equal(json.status, 200, `${hook} (JSON): ${json.text.slice(0, 300)}`);
      }
      const after = await svc.client.get("/shop/products.json?_shape=array");
      assert.equal(after.status, 200, `after ${hook}`);
      assert.equal(after.json().length, 9);
    }
  });
}
