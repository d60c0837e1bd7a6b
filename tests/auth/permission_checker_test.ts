import assert from "node:assert/strict";
import { BUILTIN_PERMISSIONS, PermissionRegistry } from "../../src/auth/permission_registry.ts";
import { PermissionChecker } from "../../src/auth/permission_checker.ts";
import { Forbidden } from "../../src/http/errors.ts";
import type { ViewHost } from "../../src/views/host.ts";
import * as defaultPermissions from "../../src/plugins/defaults/default_permissions.ts";

type HookAnswer = (args: Record<string, unknown>) => unknown;

function checker(
  options: {
    metadata?: Record<string, unknown>;
    hooks?: HookAnswer[];
    root?: boolean;
    anonymousAnswersKey?: () => string | null;
  } = {},
) {
  const hookCalls: Record<string, unknown>[] = [];
  const instance = new PermissionChecker({
    registry: new PermissionRegistry(BUILTIN_PERMISSIONS),
    metadata: () => options.metadata ?? {},
    permissionHooks: (args) => {
      hookCalls.push(args);
      const answers = (options.hooks ?? []).map((hook) => hook(args));
      return Promise.resolve(answers.filter((answer) => answer !== null && answer !== undefined));
    },
    rootEnabled: () => options.root ?? false,
    anonymousAnswersKey: options.anonymousAnswersKey,
  });
  return Object.assign(instance, { hookCalls });
}

const alice = { id: "alice" };
const bob = { id: "bob" };
const root = { id: "root" };

Deno.test("permission_allowed() falls back to each permission's default", async () => {
  const c = checker();
  assert.equal(await c.permission_allowed(null, "view-instance"), true);
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), true);
  assert.equal(await c.permission_allowed(alice, "insert-row", ["db", "t"]), false);
  assert.equal(await c.permission_allowed(alice, "no-such-action"), false);
});

Deno.test("permission_allowed() honours the default argument when nobody has an opinion", async () => {
  const c = checker();
  assert.equal(await c.permission_allowed(alice, "insert-row", ["db", "t"], true), true);
  assert.equal(await c.permission_allowed(alice, "view-table", ["db", "t"], false), false);
  assert.equal(await c.permission_allowed(alice, "view-table", ["db", "t"], null), null);
});

Deno.test("allow blocks guard view actions at every level", async () => {
  const c = checker({
    metadata: {
      allow: { id: ["alice", "bob"] },
      databases: {
        db: {
          allow: { id: "alice" },
          tables: { secret: { allow: { id: "bob" } } },
          queries: { q: { sql: "select 1", allow: false } },
        },
      },
    },
  });
  assert.equal(await c.permission_allowed(null, "view-instance"), false);
  assert.equal(await c.permission_allowed(bob, "view-instance"), true);
  assert.equal(await c.permission_allowed(bob, "view-database", "db"), false);
  assert.equal(await c.permission_allowed(alice, "view-database", "db"), true);
  assert.equal(await c.permission_allowed(alice, "view-database", "other"), true);
  assert.equal(await c.permission_allowed(alice, "view-table", ["db", "secret"]), false);
  assert.equal(await c.permission_allowed(bob, "view-table", ["db", "secret"]), true);
  assert.equal(await c.permission_allowed(bob, "view-table", ["db", "open"]), true);
  assert.equal(await c.permission_allowed(alice, "view-query", ["db", "q"]), false);
});

Deno.test("allow_sql applies at database level, then instance level", async () => {
  const c = checker({
    metadata: {
      allow_sql: { id: "alice" },
      databases: { db: { allow_sql: { id: "bob" } } },
    },
  });
  assert.equal(await c.permission_allowed(bob, "execute-sql", "db"), true);
  assert.equal(await c.permission_allowed(alice, "execute-sql", "db"), false);
  assert.equal(await c.permission_allowed(alice, "execute-sql", "other"), true);
  assert.equal(await c.permission_allowed(bob, "execute-sql", "other"), false);
});

Deno.test("permissions: blocks grant actions, most specific level first", async () => {
  const c = checker({
    metadata: {
      permissions: { "insert-row": { id: "alice" }, "debug-menu": { id: "bob" } },
      databases: {
        db: {
          permissions: { "insert-row": { id: "bob" } },
          tables: { t: { permissions: { "insert-row": { id: "carl" } } } },
          queries: { q: { sql: "select 1", permissions: { "view-query": { id: "dora" } } } },
        },
      },
    },
  });
  assert.equal(await c.permission_allowed(bob, "debug-menu"), true);
  assert.equal(await c.permission_allowed(alice, "debug-menu"), false);
  assert.equal(await c.permission_allowed({ id: "carl" }, "insert-row", ["db", "t"]), true);
  assert.equal(await c.permission_allowed(bob, "insert-row", ["db", "t"]), false);
  assert.equal(await c.permission_allowed(bob, "insert-row", ["db", "u"]), true);
  assert.equal(await c.permission_allowed(alice, "insert-row", ["db", "u"]), false);
  assert.equal(await c.permission_allowed(alice, "insert-row", ["other", "u"]), true);
  assert.equal(await c.permission_allowed({ id: "dora" }, "view-query", ["db", "q"]), true);
  assert.equal(await c.permission_allowed(alice, "view-query", ["db", "q"]), false);
});

Deno.test("permission_allowed hooks: first true/false answer wins, null has no opinion", async () => {
  const c = checker({
    hooks: [
      ({ action }) => action === "insert-row" ? true : null,
      ({ action }) => action === "insert-row" ? false : undefined,
      ({ action }) => action === "view-table" ? false : null,
    ],
  });
  assert.equal(await c.permission_allowed(alice, "insert-row", ["db", "t"]), true);
  assert.equal(await c.permission_allowed(alice, "view-table", ["db", "t"]), false);
  assert.equal(await c.permission_allowed(alice, "view-database", "db"), true);
  assert.deepEqual(c.hookCalls[0], { actor: alice, action: "insert-row", resource: ["db", "t"] });
});

Deno.test("metadata rules are consulted before plugin hooks", async () => {
  const c = checker({
    metadata: { databases: { db: { allow: false } } },
    hooks: [() => true],
  });
  assert.equal(await c.permission_allowed(alice, "view-database", "db"), false);
  assert.equal(c.hookCalls.length, 0);
});

Deno.test("root may do everything with --root, unless metadata denies it", async () => {
  const withRoot = checker({
    root: true,
    metadata: { databases: { locked: { allow: false } } },
    hooks: [() => false],
  });
  assert.equal(await withRoot.permission_allowed(root, "drop-table", ["db", "t"]), true);
  assert.equal(await withRoot.permission_allowed(root, "permissions-debug"), true);
  assert.equal(await withRoot.permission_allowed(root, "view-database", "locked"), false);
  assert.equal(await withRoot.permission_allowed(alice, "permissions-debug"), false);
  const withoutRoot = checker();
  assert.equal(await withoutRoot.permission_allowed(root, "permissions-debug"), false);
});

Deno.test("default_allow_sql off denies execute-sql unless a rule allows it", async () => {
  // Core's own answer is a trylast hook (src/plugins/defaults/default_permissions.ts), asked last.
  const settings: Record<string, unknown> = { default_allow_sql: false };
  const svc = { setting: (key: string) => settings[key] } as unknown as ViewHost;
  const coreAnswer: HookAnswer = ({ action }) =>
    defaultPermissions.permission_allowed({ svc, action: String(action) });
  const c = checker({
    metadata: { databases: { db: { allow_sql: { id: "alice" } } } },
    hooks: [({ actor }) => (actor as { id?: string })?.id === "carol" ? true : null, coreAnswer],
  });
  assert.equal(await c.permission_allowed(bob, "execute-sql", "other"), false);
  assert.equal(await c.permission_allowed(alice, "execute-sql", "db"), true);
  // A plugin asked before core may still grant it.
  assert.equal(await c.permission_allowed({ id: "carol" }, "execute-sql", "other"), true);
  assert.equal(await c.permission_allowed(bob, "view-database", "other"), true);
  settings.default_allow_sql = true;
  assert.equal(await c.permission_allowed(bob, "execute-sql", "other"), true);
});

Deno.test("token restrictions only narrow, by name or abbreviation", async () => {
  const c = checker({
    metadata: { permissions: { "insert-row": true } },
    hooks: [({ action }) => action === "drop-table" ? true : null],
  });
  const token = {
    id: "alice",
    token: "dstok",
    _r: { a: ["vt"], d: { db: ["insert-row"] }, r: { db: { t: ["dt"] } } },
  };
  assert.equal(await c.permission_allowed(token, "view-table", ["other", "x"]), true);
  assert.equal(await c.permission_allowed(token, "insert-row", ["db", "x"]), true);
  assert.equal(await c.permission_allowed(token, "insert-row", ["other", "x"]), false);
  assert.equal(await c.permission_allowed(token, "drop-table", ["db", "t"]), true);
  assert.equal(await c.permission_allowed(token, "drop-table", ["db", "u"]), false);
  // A listed action the actor lacks anyway stays denied: restrictions never grant.
  const plain = checker();
  assert.equal(await plain.permission_allowed(token, "insert-row", ["db", "x"]), false);
  assert.equal(await plain.permission_allowed(token, "execute-sql", "db"), false);
  // view-instance and view-database are implied by a view action.
  assert.equal(await plain.permission_allowed(token, "view-instance"), true);
  assert.equal(await plain.permission_allowed(token, "view-database", "anything"), true);
});

Deno.test("root with a restricted token is still restricted", async () => {
  const c = checker({ root: true });
  const token = { id: "root", token: "dstok", _r: { a: ["view-table"] } };
  assert.equal(await c.permission_allowed(token, "view-table", ["db", "t"]), true);
  assert.equal(await c.permission_allowed(token, "drop-table", ["db", "t"]), false);
});

Deno.test("ensure_permissions(): explicit grant stops, denial throws, defaults decide the rest", async () => {
  const c = checker({
    metadata: {
      databases: {
        db: { allow: { id: "alice" }, tables: { t: { allow: { id: "bob" } } } },
      },
    },
  });
  // bob is explicitly granted the table, so the database denial is never reached.
  await c.ensure_permissions(bob, [["view-table", ["db", "t"]], ["view-database", "db"]]);
  await assert.rejects(
    () => c.ensure_permissions(bob, [["view-database", "db"], ["view-table", ["db", "t"]]]),
    (error) =>
      error instanceof Forbidden && error.message === "Permission denied: view-database" &&
      error.status === 403,
  );
  // No opinion anywhere: defaults allow views, deny insert-row.
  await c.ensure_permissions(alice, [["view-table", ["db", "u"]], "view-instance"]);
  await assert.rejects(() => c.ensure_permissions(alice, [["insert-row", ["db", "u"]]]), Forbidden);
  await assert.rejects(() => c.ensure_permissions(alice, [["bad"]] as never), TypeError);
});

Deno.test("check_visibility() reports visible and private through the view chain", async () => {
  const c = checker({
    metadata: {
      databases: {
        private_db: { allow: { id: "alice" } },
        public_db: { tables: { hidden: { allow: { id: "alice" } } } },
      },
    },
  });
  const visibility = (actor: Record<string, unknown> | null, action: string, resource: unknown) =>
    c.check_visibility(actor, { action, resource: resource as never });
  assert.deepEqual(await visibility(alice, "view-database", "private_db"), [true, true]);
  assert.deepEqual(await visibility(bob, "view-database", "private_db"), [false, false]);
  assert.deepEqual(await visibility(alice, "view-table", ["private_db", "t"]), [true, true]);
  assert.deepEqual(await visibility(null, "view-table", ["private_db", "t"]), [false, false]);
  assert.deepEqual(await visibility(alice, "view-table", ["public_db", "hidden"]), [true, true]);
  assert.deepEqual(await visibility(bob, "view-table", ["public_db", "hidden"]), [false, false]);
  assert.deepEqual(await visibility(bob, "view-table", ["public_db", "open"]), [true, false]);
  assert.deepEqual(
    await c.check_visibility(alice, { permissions: [["view-database", "private_db"]] }),
    [true, true],
  );
});

Deno.test("recentChecks() logs the latest 200 checks, newest first", async () => {
  const c = checker();
  for (let i = 0; i < 205; i++) await c.permission_allowed(alice, "view-table", ["db", `t${i}`]);
  await c.permission_allowed(null, "insert-row", ["db", "t"], null);
  const checks = c.recentChecks();
  assert.equal(checks.length, 200);
  assert.deepEqual(
    { ...checks[0], when: undefined },
    {
      when: undefined,
      actor: null,
      action: "insert-row",
      resource: ["db", "t"],
      result: null,
      used_default: true,
    },
  );
  assert.deepEqual(checks[1].resource, ["db", "t204"]);
  assert.equal(checks[199].resource?.[1], "t6");
  assert.match(checks[0].when, /^\d{4}-\d\d-\d\dT/);
});

Deno.test("the anonymous actor's answers are kept across calls while their key stays", async () => {
  let key: string | null = "fixed";
  let answer: boolean | null = false;
  const c = checker({ hooks: [() => answer], anonymousAnswersKey: () => key });
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), false);
  answer = true; // unseen while the key says nothing changed
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), false);
  assert.equal(c.hookCalls.length, 1);
  // Another resource, another answer; a signed-in actor is always asked afresh.
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "u"]), true);
  assert.equal(await c.permission_allowed(alice, "view-table", ["db", "t"]), true);
  assert.equal(c.hookCalls.length, 3);
  // Every check is still logged for /-/permissions.
  assert.equal(c.recentChecks().length, 4);
  // A new key (a setting, permission or plugin changed) drops what was kept.
  key = "changed";
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), true);
  answer = false;
  // No key (a plugin may answer differently each time): asked every time.
  key = null;
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), false);
  assert.equal(await c.permission_allowed(null, "view-table", ["db", "t"]), false);
  assert.equal(c.hookCalls.length, 6);
});
