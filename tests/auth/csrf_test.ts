import assert from "node:assert/strict";
import {
  CSRF_CROSS_SITE,
  CSRF_MISMATCH,
  csrfCheck,
  type CsrfCheckInput,
  newCsrfToken,
} from "../../src/auth/csrf.ts";
import { Signer } from "../../src/auth/signer.ts";

const signer = new Signer("secret");
const token = newCsrfToken(signer);
const formPost = "application/x-www-form-urlencoded";

function check(overrides: Partial<CsrfCheckInput>): string | null {
  return csrfCheck({
    method: "POST",
    headers: { "content-type": formPost },
    cookies: { ds_csrftoken: token },
    formToken: null,
    signer,
    ...overrides,
  });
}

Deno.test("newCsrfToken() makes distinct tokens signed in the csrftoken namespace", () => {
  const other = newCsrfToken(signer);
  assert.notEqual(token, other);
  assert.match(String(signer.unsign(token, "csrftoken")), /^[0-9a-f]{32}$/);
});

Deno.test("csrfCheck() accepts a matching form field or x-csrftoken header", () => {
  assert.equal(check({ formToken: token }), null);
  assert.equal(check({ headers: { "content-type": formPost, "X-CSRFToken": token } }), null);
  assert.equal(check({ headers: new Headers({ "x-csrftoken": token }) }), null);
});

Deno.test("csrfCheck() rejects a missing, different or unsigned token with the spec's message", () => {
  assert.equal(CSRF_MISMATCH, "form-urlencoded POST field did not match cookie");
  assert.equal(check({}), CSRF_MISMATCH);
  assert.equal(check({ formToken: newCsrfToken(signer) }), CSRF_MISMATCH);
  assert.equal(check({ cookies: { other: "1" }, formToken: token }), CSRF_MISMATCH);
  const unsigned = "abc";
  assert.equal(check({ cookies: { ds_csrftoken: unsigned }, formToken: unsigned }), CSRF_MISMATCH);
  const foreign = newCsrfToken(new Signer("attacker"));
  assert.equal(check({ cookies: { ds_csrftoken: foreign }, formToken: foreign }), CSRF_MISMATCH);
});

Deno.test("csrfCheck() lets safe methods through without a token", () => {
  for (const method of ["GET", "HEAD", "OPTIONS", "get"]) assert.equal(check({ method }), null);
  for (const method of ["PUT", "PATCH", "DELETE"]) assert.equal(check({ method }), CSRF_MISMATCH);
});

Deno.test("csrfCheck() is skipped without cookies, for bearer or JSON requests, or by a hook", () => {
  assert.equal(check({ cookies: {} }), null);
  assert.equal(check({ headers: { authorization: "Bearer dstok_abc" } }), null);
  assert.equal(check({ headers: { "content-type": "application/json; charset=utf-8" } }), null);
  assert.equal(check({ skip: true }), null);
  assert.equal(check({ headers: { authorization: "Basic abc" } }), CSRF_MISMATCH);
});

Deno.test("csrfCheck() refuses cross-site browser requests even with a valid token", () => {
  const headers = { "content-type": formPost, "sec-fetch-site": "cross-site" };
  assert.equal(check({ headers, formToken: token }), CSRF_CROSS_SITE);
  assert.notEqual(CSRF_CROSS_SITE, CSRF_MISMATCH);
  const sameOrigin = { "content-type": formPost, "sec-fetch-site": "same-origin" };
  assert.equal(check({ headers: sameOrigin, formToken: token }), null);
});

Deno.test("csrfCheck() refuses cross-site cookie requests whatever bearer or JSON header they add", () => {
  const crossSite = { "sec-fetch-site": "cross-site" };
  // A page on another site cannot buy its way past the check with headers that cost it nothing.
  const bearer = { ...crossSite, "content-type": formPost, authorization: "Bearer anything" };
  assert.equal(check({ headers: bearer }), CSRF_CROSS_SITE);
  const json = { ...crossSite, "content-type": "application/json" };
  assert.equal(check({ headers: json }), CSRF_CROSS_SITE);
  // Without cookies there are no ambient credentials to abuse; a skip_csrf hook still decides.
  assert.equal(check({ headers: bearer, cookies: {} }), null);
  assert.equal(check({ headers: json, skip: true }), null);
});
