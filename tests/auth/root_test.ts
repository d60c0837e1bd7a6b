import assert from "node:assert/strict";
import { ROOT_TOKEN_LIFETIME_MS, RootToken } from "../../src/auth/root.ts";
import { Signer } from "../../src/auth/signer.ts";

Deno.test("RootToken is signed with the secret and different each time", () => {
  const signer = new Signer("secret");
  const token = new RootToken(signer);
  assert.match(token.value, /^[\w-]+\.[\w-]+$/);
  assert.notEqual(token.value, new RootToken(signer).value);
});

Deno.test("RootToken.consume() accepts a token once per process", () => {
  const token = new RootToken(new Signer("s"));
  assert.equal(token.consume("wrong"), "Invalid token");
  assert.equal(token.consume(undefined), "Invalid token");
  assert.equal(token.consume(token.value), "ok");
  assert.equal(token.consume(token.value), "Root token has already been used");
  assert.equal(token.consume("wrong"), "Invalid token");
});

Deno.test("a token printed by one replica works on another sharing the secret, not elsewhere", () => {
  const printed = new RootToken(new Signer("shared")).value;
  const replica = new RootToken(new Signer("shared"));
  assert.equal(replica.consume(printed), "ok");
  assert.equal(replica.consume(printed), "Root token has already been used");
  const stranger = new RootToken(new Signer("another secret"));
  assert.equal(stranger.consume(printed), "Invalid token");
});

Deno.test("a root token expires an hour after it was made", () => {
  let now = 1_700_000_000_000;
  const signer = new Signer("s");
  const printed = new RootToken(signer, { now: () => now }).value;
  const replica = new RootToken(signer, { now: () => now });
  now += ROOT_TOKEN_LIFETIME_MS;
  assert.match(replica.consume(printed), /expired/);
  now -= 1000;
  assert.equal(replica.consume(printed), "ok");
});

Deno.test("a forged payload signed with another secret is refused", () => {
  const forged = new Signer("attacker").sign({ n: "x", e: 9999999999 }, "root-token");
  assert.equal(new RootToken(new Signer("s")).consume(forged), "Invalid token");
});
