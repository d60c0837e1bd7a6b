import assert from "node:assert/strict";
import {
  base62Decode,
  base62Encode,
  decodeActorCookie,
  encodeActorCookie,
} from "../../src/auth/actor_cookie.ts";
import { Signer } from "../../src/auth/signer.ts";

const signer = new Signer("secret");
const NOW = 1_700_000_000;

Deno.test("base62 uses Python baseconv's alphabet", () => {
  assert.equal(base62Encode(0), "0");
  assert.equal(base62Encode(61), "z");
  assert.equal(base62Encode(62), "10");
  assert.equal(base62Encode(NOW), "1r31eq");
  assert.equal(base62Decode("1r31eq"), NOW);
  assert.ok(Number.isNaN(base62Decode("a-b")));
  assert.throws(() => base62Encode(-1), RangeError);
});

Deno.test("a ds_actor cookie without expiry is Datasette's bytes and decodes to the actor", () => {
  const cookie = encodeActorCookie(signer, { id: "root" });
  assert.equal(cookie, "eyJhIjp7ImlkIjoicm9vdCJ9fQ.Nyuc5Q7xhxf1VMYzBUosCIdrdW0");
  assert.deepEqual(decodeActorCookie(signer, cookie), { id: "root" });
});

Deno.test("a ds_actor cookie stops working after its expiry", () => {
  const cookie = encodeActorCookie(signer, { id: "alice" }, { expire_after: 60, now: NOW });
  assert.deepEqual(signer.unsign(cookie, "actor"), {
    a: { id: "alice" },
    e: base62Encode(NOW + 60),
  });
  assert.deepEqual(decodeActorCookie(signer, cookie, NOW + 60), { id: "alice" });
  assert.equal(decodeActorCookie(signer, cookie, NOW + 61), null);
});

Deno.test("a bad ds_actor cookie means anonymous", () => {
  assert.equal(decodeActorCookie(signer, undefined), null);
  assert.equal(decodeActorCookie(signer, "nonsense"), null);
  assert.equal(
    decodeActorCookie(new Signer("other"), encodeActorCookie(signer, { id: "x" })),
    null,
  );
  assert.equal(decodeActorCookie(signer, signer.sign({ a: { id: "x" } }, "messages")), null);
  assert.equal(decodeActorCookie(signer, signer.sign({ a: "root" }, "actor")), null);
  assert.equal(decodeActorCookie(signer, signer.sign({ a: { id: "x" }, e: "!!" }, "actor")), null);
});
