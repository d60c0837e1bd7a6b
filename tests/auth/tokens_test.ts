import assert from "node:assert/strict";
import { BUILTIN_PERMISSIONS, PermissionRegistry } from "../../src/auth/permission_registry.ts";
import { Signer } from "../../src/auth/signer.ts";
import {
  actorFromToken,
  createToken,
  InvalidToken,
  restrictionsAllow,
} from "../../src/auth/tokens.ts";

const signer = new Signer("secret");
const registry = new PermissionRegistry(BUILTIN_PERMISSIONS);
const NOW = 1_700_000_000;
const settings = { allow_signed_tokens: true, max_signed_tokens_ttl: 0 };

function payloadOf(token: string): unknown {
  assert.ok(token.startsWith("dstok_"));
  return signer.unsign(token.slice("dstok_".length), "token");
}

Deno.test("createToken() signs the §14 payload, abbreviating known actions", () => {
  const token = createToken(signer, "alice", {
    now: NOW,
    expires_after: 3600,
    restrict_all: ["view-instance", "custom-action"],
    restrict_database: { db: ["execute-sql"] },
    restrict_resource: { db: { t: ["insert-row", "vt"] } },
  }, registry);
  assert.deepEqual(payloadOf(token), {
    a: "alice",
    t: NOW,
    d: 3600,
    _r: { a: ["vi", "custom-action"], d: { db: ["es"] }, r: { db: { t: ["ir", "vt"] } } },
  });
  assert.deepEqual(payloadOf(createToken(signer, "bob", { now: NOW })), { a: "bob", t: NOW });
});

Deno.test("createToken() matches the bytes Datasette signs for the same payload", () => {
  // itsdangerous 2.2: URLSafeSerializer("secret", "token").dumps({"a": "root", "t": 1700000000})
  assert.equal(
    createToken(signer, "root", { now: NOW }),
    "dstok_eyJhIjoicm9vdCIsInQiOjE3MDAwMDAwMDB9.SCwgcvm_9Ld1ptx9FFsHYNcfVUE",
  );
});

Deno.test("actorFromToken() returns the actor with expiry and restrictions", () => {
  const token = createToken(signer, "alice", {
    now: NOW,
    expires_after: 60,
    restrict_all: ["view-table"],
  }, registry);
  assert.deepEqual(actorFromToken(signer, token, { ...settings, now: NOW + 60 }), {
    id: "alice",
    token: "dstok",
    token_expires: NOW + 60,
    _r: { a: ["vt"] },
  });
  const forever = createToken(signer, "bob", { now: NOW });
  assert.deepEqual(actorFromToken(signer, forever, { ...settings, now: NOW + 10 ** 8 }), {
    id: "bob",
    token: "dstok",
  });
});

Deno.test("actorFromToken() rejects expired tokens", () => {
  const token = createToken(signer, "alice", { now: NOW, expires_after: 60 });
  assert.throws(
    () => actorFromToken(signer, token, { ...settings, now: NOW + 61 }),
    (error) => error instanceof InvalidToken && error.message === "Token expired",
  );
});

Deno.test("max_signed_tokens_ttl caps token lifetimes, including never-expiring tokens", () => {
  const capped = { allow_signed_tokens: true, max_signed_tokens_ttl: 100 };
  const forever = createToken(signer, "bob", { now: NOW });
  assert.equal(
    actorFromToken(signer, forever, { ...capped, now: NOW + 100 })?.token_expires,
    NOW + 100,
  );
  assert.throws(() => actorFromToken(signer, forever, { ...capped, now: NOW + 101 }), InvalidToken);
  const long = createToken(signer, "bob", { now: NOW, expires_after: 1000 });
  assert.throws(() => actorFromToken(signer, long, { ...capped, now: NOW + 101 }), InvalidToken);
  const short = createToken(signer, "bob", { now: NOW, expires_after: 10 });
  assert.equal(actorFromToken(signer, short, { ...capped, now: NOW + 5 })?.token_expires, NOW + 10);
});

Deno.test("actorFromToken() rejects forged, malformed and disabled tokens", () => {
  const good = createToken(signer, "alice", { now: NOW });
  const otherSecret = createToken(new Signer("other"), "alice", { now: NOW });
  assert.throws(() => actorFromToken(signer, otherSecret, settings), /Invalid token signature/);
  const noTime = "dstok_" + signer.sign({ a: "alice", t: "yesterday" }, "token");
  assert.throws(() => actorFromToken(signer, noTime, settings), /Malformed token/);
  const badDuration = "dstok_" + signer.sign({ a: "alice", t: NOW, d: "1h" }, "token");
  assert.throws(() => actorFromToken(signer, badDuration, settings), /Malformed token/);
  const wrongNamespace = "dstok_" + signer.sign({ a: "alice", t: NOW }, "actor");
  assert.throws(() => actorFromToken(signer, wrongNamespace, settings), InvalidToken);
  assert.throws(
    () => actorFromToken(signer, good, { ...settings, allow_signed_tokens: false }),
    /not enabled/,
  );
  assert.equal(actorFromToken(signer, "some-other-api-key", settings), null);
});

Deno.test("restrictionsAllow() checks all, database and resource lists", () => {
  const r = { a: ["es"], d: { db: ["vt"] }, r: { db: { t: ["insert-row"] } } };
  assert.equal(restrictionsAllow(r, "execute-sql", "other", registry), true);
  assert.equal(restrictionsAllow(r, "view-table", ["db", "x"], registry), true);
  assert.equal(restrictionsAllow(r, "view-table", ["other", "x"], registry), false);
  assert.equal(restrictionsAllow(r, "ir", ["db", "t"], registry), true);
  assert.equal(restrictionsAllow(r, "insert-row", ["db", "u"], registry), false);
  assert.equal(restrictionsAllow(r, "permissions-debug", null, registry), false);
  assert.equal(restrictionsAllow("garbage", "view-instance", null, registry), false);
});

Deno.test("restrictionsAllow() implies view-instance and view-database from view actions", () => {
  const tableOnly = { r: { db: { t: ["vt"] } } };
  assert.equal(restrictionsAllow(tableOnly, "view-instance", null, registry), true);
  assert.equal(restrictionsAllow(tableOnly, "view-database", "db", registry), true);
  assert.equal(restrictionsAllow(tableOnly, "view-database", "other", registry), false);
  const writeOnly = { a: ["insert-row"] };
  assert.equal(restrictionsAllow(writeOnly, "view-instance", null, registry), false);
  assert.equal(restrictionsAllow(writeOnly, "view-database", "db", registry), false);
});
