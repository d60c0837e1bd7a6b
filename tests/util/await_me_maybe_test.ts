import assert from "node:assert/strict";
import { await_me_maybe } from "../../src/util/await_me_maybe.ts";

Deno.test("await_me_maybe returns plain values", async () => {
  assert.equal(await await_me_maybe(5), 5);
  assert.equal(await await_me_maybe(null), null);
  assert.deepEqual(await await_me_maybe({ id: "root" }), { id: "root" });
});

Deno.test("await_me_maybe awaits promises", async () => {
  assert.equal(await await_me_maybe(Promise.resolve("x")), "x");
});

Deno.test("await_me_maybe calls functions, sync and async", async () => {
  assert.equal(await await_me_maybe(() => 1), 1);
  assert.equal(await await_me_maybe(() => Promise.resolve(2)), 2);
});

Deno.test("await_me_maybe keeps unwrapping nested functions and promises", async () => {
  const nested = () => Promise.resolve(() => Promise.resolve({ id: "deep" }));
  assert.deepEqual(await await_me_maybe(nested), { id: "deep" });
});

Deno.test("await_me_maybe passes on rejections", async () => {
  await assert.rejects(() => await_me_maybe(() => Promise.reject(new Error("boom"))), /boom/);
});
