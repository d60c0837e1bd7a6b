import assert from "node:assert/strict";
import { parseTokenForm } from "../../src/auth/token_form.ts";
import { BUILTIN_PERMISSIONS, PermissionRegistry } from "../../src/auth/permission_registry.ts";
import { tilde_encode } from "../../src/util/tilde.ts";

const registry = new PermissionRegistry(BUILTIN_PERMISSIONS);

Deno.test("an empty form asks for an unrestricted token that never expires", () => {
  assert.deepEqual(parseTokenForm({ csrftoken: "x" }, registry), {
    expires_after: null,
    restrict_all: null,
    restrict_database: null,
    restrict_resource: null,
    errors: [],
  });
});

Deno.test("expiry units become seconds", () => {
  const seconds = (expire_type: string, expire_duration: string) =>
    parseTokenForm({ expire_type, expire_duration }, registry).expires_after;
  assert.equal(seconds("minutes", "5"), 300);
  assert.equal(seconds("hours", "2"), 7200);
  assert.equal(seconds("days", "1"), 86400);
});

Deno.test("bad expiry input is an error, never a token without expiry", () => {
  for (
    const form of [
      { expire_type: "hours", expire_duration: "" },
      { expire_type: "hours", expire_duration: "1.5" },
      { expire_type: "hours", expire_duration: "0" },
      { expire_type: "weeks", expire_duration: "1" },
      { expire_type: "constructor", expire_duration: "1" },
      { expire_type: "", expire_duration: "3" },
      // Would sign `d` as 8.64e+24, which no verifier reads as a whole number of seconds.
      { expire_type: "days", expire_duration: "100000000000000000000" },
    ]
  ) {
    const parsed = parseTokenForm(form, registry);
    assert.equal(parsed.errors.length, 1, JSON.stringify(form));
  }
});

Deno.test("restriction checkboxes map to actions per scope, names tilde-decoded", () => {
  const odd = "my:db";
  const parsed = parseTokenForm({
    "all:vi": "on",
    [`database:${tilde_encode(odd)}:execute-sql`]: "on",
    [`resource:${tilde_encode(odd)}:${tilde_encode("a table")}:view-table`]: "on",
    [`resource:${tilde_encode(odd)}:${tilde_encode("a table")}:ir`]: "on",
  }, registry);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.restrict_all, ["view-instance"]);
  assert.deepEqual(parsed.restrict_database, { "my:db": ["execute-sql"] });
  assert.deepEqual(parsed.restrict_resource, {
    "my:db": { "a table": ["view-table", "insert-row"] },
  });
});

Deno.test("unknown actions and malformed names are errors", () => {
  const parsed = parseTokenForm({ "all:fly": "on", "database:only-two": "on" }, registry);
  assert.deepEqual(parsed.errors, [
    "Unknown permission: fly",
    "Malformed restriction: database:only-two",
  ]);
});
