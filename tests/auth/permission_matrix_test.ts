/**
 * Every action at every level it applies to (instance, database, table, canned query), for
 * anonymous, a signed-in actor, root and restricted tokens, with and without metadata rules.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Actor, Service } from "../../src/service.ts";
import type { Permission } from "../../src/auth/permission_registry.ts";
import { actorFromToken } from "../../src/auth/tokens.ts";

type Resource = string | [string, string] | null;
type Level = "instance" | "database" | "table" | "query";

const RESOURCES: Record<Level, Resource> = {
  instance: null,
  database: "shop",
  table: ["shop", "products"],
  query: ["shop", "products_by_category"],
};

function levelsOf(permission: Permission): Level[] {
  if (permission.takes_resource) return ["instance", "database", "table", "query"];
  if (permission.takes_database) return ["instance", "database"];
  return ["instance"];
}

/** The actor a token stands for, as the request pipeline would build it. */
function tokenActor(svc: Service, ...args: Parameters<Service["create_token"]>): Actor {
  const actor = actorFromToken(svc.signer, svc.create_token(...args), {
    allow_signed_tokens: true,
    max_signed_tokens_ttl: 0,
  });
  assert.ok(actor);
  return actor;
}

async function matrix(
  svc: Service,
  actor: Actor | null,
  expected: (permission: Permission, level: Level) => boolean,
): Promise<void> {
  await svc.invoke_startup();
  for (const permission of svc.permissionRegistry) {
    for (const level of levelsOf(permission)) {
      const answer = await svc.permission_allowed(actor, permission.name, RESOURCES[level]);
      assert.equal(
        answer,
        expected(permission, level),
        `${JSON.stringify(actor)} ${permission.name} at ${level}`,
      );
    }
  }
}

const VIEW_ACTIONS = new Set(["view-instance", "view-database", "view-table"]);

Deno.test("with no rules: defaults for anonymous and actors, everything for root", async () => {
  await using svc = shopService({ secret: "s", root: true });
  await matrix(svc, null, (p) => p.default);
  await matrix(svc, { id: "alice" }, (p) => p.default);
  await matrix(svc, { id: "root" }, () => true);
});

Deno.test("with no rules: a token restricted to view-table can only view", async () => {
  await using svc = shopService({ secret: "s", root: true });
  const alice = tokenActor(svc, "alice", { restrict_all: ["view-table"] });
  // A listed action implies seeing the instance, and seeing a database only when one is named.
  await matrix(
    svc,
    alice,
    (p, level) => VIEW_ACTIONS.has(p.name) && !(p.name === "view-database" && level === "instance"),
  );
  // A restricted root token is narrowed as well: root's powers stop at the restriction.
  const root = tokenActor(svc, "root", { restrict_database: { shop: ["insert-row"] } });
  await matrix(svc, root, (p, level) => p.name === "insert-row" && level !== "instance");
});

/** Rules at every level, each naming alice; root is listed only at instance and database level. */
const LOCKED = {
  allow: { id: ["alice", "root"] },
  permissions: { "permissions-debug": { id: "alice" } },
  databases: {
    shop: {
      allow: { id: ["alice", "root"] },
      allow_sql: { id: "alice" },
      permissions: { "insert-row": { id: "alice" }, "create-table": { id: "alice" } },
      tables: {
        products: { allow: { id: "alice" }, permissions: { "update-row": { id: "alice" } } },
      },
      queries: {
        products_by_category: { sql: "select 1", allow: { id: "alice" } },
      },
    },
  },
};

/** What each rule of LOCKED grants, by action and level. */
function lockedGrant(p: Permission, level: Level): boolean | null {
  const at = (levels: Level[]) => levels.includes(level);
  switch (p.name) {
    case "view-instance":
      return true;
    case "view-database":
      return at(["database", "table", "query"]) ? true : null;
    case "view-table":
      return level === "table" ? true : null;
    case "view-query":
      return level === "query" ? true : null;
    case "execute-sql":
      return at(["database", "table", "query"]) ? true : null;
    case "insert-row":
    case "create-table":
      return at(["database", "table", "query"]) ? true : null;
    case "update-row":
      return level === "table" ? true : null;
    case "permissions-debug":
      return true;
    default:
      return null;
  }
}

Deno.test("with rules at every level: alice gets what they grant, anonymous nothing", async () => {
  await using svc = shopService({ secret: "s", root: true, metadata: LOCKED });
  await matrix(svc, { id: "alice" }, (p, level) => lockedGrant(p, level) ?? p.default);
  await matrix(svc, null, (p, level) => lockedGrant(p, level) === null && p.default);
  await matrix(svc, { id: "bob" }, (p, level) => lockedGrant(p, level) === null && p.default);
});

Deno.test("with rules at every level: root keeps everything the rules do not deny it", async () => {
  await using svc = shopService({ secret: "s", root: true, metadata: LOCKED });
  await matrix(svc, { id: "root" }, (p, level) => {
    const granted = lockedGrant(p, level);
    if (granted === null) return true;
    // Rules that name only alice deny root; the instance and database allow lists include root.
    if (p.name === "view-instance") return true;
    if (p.name === "view-database") return true;
    return false;
  });
});

Deno.test("with rules at every level: a restricted token of alice keeps only the overlap", async () => {
  await using svc = shopService({ secret: "s", root: true, metadata: LOCKED });
  const alice = tokenActor(svc, "alice", {
    restrict_resource: { shop: { products: ["view-table", "update-row"] } },
  });
  await matrix(svc, alice, (p, level) => {
    if (p.name === "view-instance") return true;
    if (p.name === "view-database") return level !== "instance";
    if (p.name === "view-table" || p.name === "update-row") return level === "table";
    return false;
  });
  const bob = tokenActor(svc, "bob", { restrict_all: ["view-table", "execute-sql"] });
  // Bob is named by no rule: only where no rule applies does the default let him through.
  await matrix(svc, bob, (p, level) =>
    (p.name === "view-table" && level !== "table") ||
    (p.name === "execute-sql" && level === "instance"));
});

Deno.test("permission_allowed hooks decide when metadata has no opinion, and can be async", async () => {
  await using svc = shopService({ secret: "s" });
  await svc.invoke_startup();
  svc.pm.register({
    permission_allowed({ actor, action }: { actor: Actor | null; action: string }) {
      if (action === "insert-row" && actor?.id === "writer") {
        return Promise.resolve(true);
      }
      if (action === "view-table" && actor?.id === "blocked") return false;
      return null;
    },
  }, { name: "test-permissions" });
  assert.equal(
    await svc.permission_allowed({ id: "writer" }, "insert-row", ["shop", "log"]),
    true,
  );
  assert.equal(
    await svc.permission_allowed({ id: "alice" }, "insert-row", ["shop", "log"]),
    false,
  );
  assert.equal(
    await svc.permission_allowed({ id: "blocked" }, "view-table", ["shop", "log"]),
    false,
  );
  assert.equal(
    await svc.permission_allowed({ id: "alice" }, "view-table", ["shop", "log"]),
    true,
  );
});
