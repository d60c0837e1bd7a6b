import assert from "node:assert/strict";
import {
  BUILTIN_PERMISSIONS,
  Permission,
  PermissionRegistry,
} from "../../src/auth/permission_registry.ts";
import { isKeyError } from "../../src/util/key_error.ts";

Deno.test("BUILTIN_PERMISSIONS lists the §15 actions with their abbreviations and defaults", () => {
  const byName = Object.fromEntries(BUILTIN_PERMISSIONS.map((p) => [p.name, p]));
  assert.equal(BUILTIN_PERMISSIONS.length, 23);
  assert.deepEqual(
    ["view-instance", "view-database", "view-database-download", "view-table", "view-query"]
      .map((name) => byName[name].default),
    [true, true, true, true, true],
  );
  assert.equal(byName["execute-sql"].default, true);
  assert.equal(byName["execute-sql"].abbr, "es");
  assert.equal(byName["view-table"].abbr, "vt");
  assert.equal(byName["set-column-type"].abbr, "sct");
  assert.equal(byName["view-metrics"].abbr, "vm");
  assert.equal(byName["edit-metadata"].abbr, "em");
  for (
    const name of [
      "permissions-debug",
      "debug-menu",
      "insert-row",
      "drop-table",
      "store-query",
      "view-metrics",
      "edit-metadata",
    ]
  ) {
    assert.equal(byName[name].default, false, name);
  }
  assert.deepEqual(
    [byName["view-instance"].takes_database, byName["view-instance"].takes_resource],
    [false, false],
  );
  assert.deepEqual(
    [byName["create-table"].takes_database, byName["create-table"].takes_resource],
    [true, false],
  );
  assert.deepEqual(
    [byName["insert-row"].takes_database, byName["insert-row"].takes_resource],
    [true, true],
  );
});

Deno.test("new Permission() applies the spec's defaults for optional fields", () => {
  const p = new Permission({
    name: "edit-notes",
    takes_database: true,
    takes_resource: false,
    default: false,
  });
  assert.deepEqual(p.toJSON(), {
    name: "edit-notes",
    abbr: null,
    description: null,
    takes_database: true,
    takes_resource: false,
    default: false,
  });
});

Deno.test("PermissionRegistry finds permissions by name or abbreviation", () => {
  const registry = new PermissionRegistry(BUILTIN_PERMISSIONS);
  assert.equal(registry.get("vt").name, "view-table");
  assert.equal(registry.get("view-table").abbr, "vt");
  assert.equal(registry.has("es"), true);
  assert.equal(registry.find("nope"), undefined);
  assert.throws(() => registry.get("nope"), (error) => isKeyError(error));
  assert.equal([...registry].length, 23);
  assert.equal(registry.toObject()["drop-view"].abbr, "dv");
});

Deno.test("PermissionRegistry rejects duplicate names and abbreviations", () => {
  const registry = new PermissionRegistry(BUILTIN_PERMISSIONS);
  const make = (name: string, abbr: string | null) =>
    new Permission({ name, abbr, takes_database: false, takes_resource: false, default: false });
  assert.throws(() => registry.register(make("view-table", null)), /Duplicate permission name/);
  assert.throws(
    () => registry.register(make("very-tidy", "vt")),
    /Duplicate permission abbreviation/,
  );
  registry.register(make("custom-one", null));
  registry.register(make("custom-two", null));
  assert.equal(registry.get("custom-two").name, "custom-two");
  assert.throws(() => registry.register({ name: "fake" } as never), TypeError);
});
