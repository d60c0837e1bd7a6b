import assert from "node:assert/strict";
import { hookimpl, hookimplOptions } from "../../src/plugins/hookimpl.ts";

Deno.test("hookimpl marks a function with its options and returns the same function", () => {
  const fn = () => null;
  const marked = hookimpl(fn, { tryfirst: true });
  assert.equal(marked, fn);
  assert.deepEqual(hookimplOptions(marked), { tryfirst: true });
});

Deno.test("hookimpl can be used curried, like a decorator", () => {
  const marked = hookimpl({ trylast: true, specname: "forbidden" })(() => null);
  assert.deepEqual(hookimplOptions(marked), { trylast: true, specname: "forbidden" });
});

Deno.test("an unmarked function has no options", () => {
  assert.equal(hookimplOptions(() => null), null);
  assert.equal(hookimplOptions("not a function"), null);
});

Deno.test("tryfirst and trylast together are refused", () => {
  assert.throws(() => hookimpl(function startup() {}, { tryfirst: true, trylast: true }), {
    name: "TypeError",
    message: 'hookimpl "startup": tryfirst and trylast cannot both be set',
  });
});
