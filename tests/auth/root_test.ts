import assert from "node:assert/strict";
import { RootToken } from "../../src/auth/root.ts";

Deno.test("RootToken is 32 random bytes as hex, different each time", () => {
  const token = new RootToken();
  assert.match(token.value, /^[0-9a-f]{64}$/);
  assert.notEqual(token.value, new RootToken().value);
});

Deno.test("RootToken.consume() accepts the token once", () => {
  const token = new RootToken("abc123");
  assert.equal(token.consume("wrong"), "Invalid token");
  assert.equal(token.consume(undefined), "Invalid token");
  assert.equal(token.consume("abc123"), "ok");
  assert.equal(token.consume("abc123"), "Root token has already been used");
  assert.equal(token.consume("wrong"), "Root token has already been used");
});
