import assert from "node:assert/strict";
import {
  parseCookies,
  parseSetCookie,
  quoteCookieValue,
  serializeCookie,
  unquoteCookieValue,
} from "../../src/http/cookies.ts";

Deno.test("parseCookies reads name=value pairs", () => {
  assert.deepEqual(parseCookies("a=1; b=two; c="), { a: "1", b: "two", c: "" });
  assert.deepEqual(parseCookies(""), {});
  assert.deepEqual(parseCookies(null), {});
  assert.deepEqual(parseCookies("junk; ok=1"), { ok: "1" });
});

Deno.test("serializeCookie defaults to Path=/ and SameSite=lax", () => {
  assert.equal(serializeCookie("ds_actor", "abc"), "ds_actor=abc; Path=/; SameSite=lax");
});

Deno.test("serializeCookie writes every attribute", () => {
  const header = serializeCookie("n", "v", {
    max_age: 60,
    expires: new Date(Date.UTC(2030, 0, 1)),
    domain: "example.com",
    secure: true,
    httponly: true,
    samesite: "strict",
    path: "/db",
  });
  assert.equal(
    header,
    "n=v; Domain=example.com; expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly; Max-Age=60; " +
      "Path=/db; SameSite=strict; Secure",
  );
});

Deno.test("serializeCookie rejects an unknown samesite", () => {
  // deno-lint-ignore no-explicit-any
  assert.throws(() => serializeCookie("n", "v", { samesite: "sideways" as any }), RangeError);
});

Deno.test("values needing quotes round-trip", () => {
  for (const value of ["a b", "semi;colon", 'quote"back\\slash', "comma,é", "plain.value-_~"]) {
    const quoted = quoteCookieValue(value);
    assert.equal(unquoteCookieValue(quoted), value);
    assert.deepEqual(parseCookies(`k=${quoted}`), { k: value });
  }
  assert.equal(quoteCookieValue("semi;colon"), '"semi\\073colon"');
  assert.equal(quoteCookieValue("eyJhIjoxfQ.sig-_"), "eyJhIjoxfQ.sig-_");
});

Deno.test("parseSetCookie returns name and value only", () => {
  assert.deepEqual(parseSetCookie("ds_actor=x.y; Path=/; HttpOnly"), ["ds_actor", "x.y"]);
  assert.equal(parseSetCookie("garbage"), null);
});
