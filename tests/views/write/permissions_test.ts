import assert from "node:assert/strict";
import { shopService } from "../../fixtures/shop.ts";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";
import { auth, errorsOf, fileRows, post, withWriter, WRITE_ACTIONS } from "./_write_helpers.ts";

/** One request per endpoint, each of which would change the database if allowed. */
const WRITES: [string, unknown][] = [
  ["/shop/log/-/insert", { row: { message: "x" } }],
  ["/shop/log/-/upsert", { rows: [{ rowid: 1, message: "x" }] }],
  ["/shop/products/1/-/update", { update: { name: "x" } }],
  ["/shop/products/1/-/delete", {}],
  ["/shop/products/-/update-rows", { pks: [1, 2], update: { name: "x" } }],
  ["/shop/products/-/delete-rows", { pks: [3] }],
  ["/shop/-/create", { table: "t", columns: [{ name: "a" }] }],
  ["/shop/log/-/drop", { confirm: true }],
];

/** What the database holds, to prove that refused writes changed nothing. */
function snapshot(svc: Parameters<typeof fileRows>[0]) {
  return fileRows(
    svc,
    "select (select group_concat(name) from sqlite_master) as schema, " +
      "(select group_concat(message) from log) as log, " +
      "(select group_concat(name) from products) as products",
  );
}

Deno.test("writes are denied by default: anonymous and signed-in actors get 403s", async () => {
  await using svc = shopService({ secret: "s" });
  const before = snapshot(svc);
  for (const [path, body] of WRITES) {
    const anonymous = await post(svc, path, body, {});
    assert.equal(anonymous.status, 403, path);
    assert.match(errorsOf(anonymous)[0], /^Permission denied/);
    const someone = await post(svc, path, body, auth(svc, "someone"));
    assert.equal(someone.status, 403, path);
  }
  assert.deepEqual(snapshot(svc), before);
});

Deno.test("--root may write; metadata can grant per table", async () => {
  await using svc = shopService({
    secret: "s",
    root: true,
    metadata: {
      databases: {
        shop: { tables: { log: { permissions: { "insert-row": { id: "logger" } } } } },
      },
    },
  });
  const root = auth(svc, "root");
  assert.equal(
    (await post(svc, "/shop/categories/-/insert", { row: { name: "r" } }, root)).status,
    201,
  );
  // A table's own permissions block decides for that table, for root too.
  assert.equal((await post(svc, "/shop/log/-/insert", { row: {} }, root)).status, 403);
  const logger = auth(svc, "logger");
  assert.equal((await post(svc, "/shop/log/-/insert", { row: {} }, logger)).status, 201);
  const elsewhere = await post(svc, "/shop/categories/-/insert", { row: { name: "x" } }, logger);
  assert.equal(elsewhere.status, 403);
  assert.deepEqual(errorsOf(elsewhere), ["Permission denied: need insert-row"]);
  assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 4);
  assert.equal(fileRows(svc, "select count(*) as n from categories")[0].n, 4);
});

Deno.test("a token restricted to insert-row on one table can do nothing else", async () => {
  await withWriter(async (svc) => {
    const headers = auth(svc, "writer", { restrict_resource: { shop: { log: ["insert-row"] } } });
    const before = snapshot(svc);
    for (const [path, body] of WRITES.filter(([path]) => path !== "/shop/log/-/insert")) {
      const response = await post(svc, path, body, headers);
      assert.equal(response.status, 403, path);
    }
    const otherTable = await post(
      svc,
      "/shop/categories/-/insert",
      { row: { name: "x" } },
      headers,
    );
    assert.equal(otherTable.status, 403);
    // Not even reading: the token names no view action.
    assert.equal((await svc.client.get("/shop/products.json", { headers })).status, 403);
    assert.deepEqual(snapshot(svc), before);

    // What it was made for works, rows returned included.
    const inserted = await post(svc, "/shop/log/-/insert", { row: { message: "ok" } }, headers);
    assert.equal(inserted.status, 201);
    assert.deepEqual(inserted.json().rows, [{ rowid: 4, message: "ok", level: null }]);
  });
});

Deno.test("abbreviations from register_permissions work in tokens", async () => {
  await withWriter(async (svc) => {
    await svc.invoke_startup();
    assert.deepEqual(
      WRITE_ACTIONS.map((action) => svc.get_permission(action).abbr),
      ["ir", "ur", "dr", "ct", "at", "dt"],
    );
    assert.equal(svc.get_permission("dt").name, "drop-table");
    const token = auth(svc, "writer", { restrict_database: { shop: ["ur"] } });
    assert.equal((await post(svc, "/shop/products/1/-/update", { update: {} }, token)).status, 200);
    assert.equal((await post(svc, "/shop/products/1/-/delete", {}, token)).status, 403);
  });
});

Deno.test("actors who cannot see a table cannot write to it", async () => {
  await using svc = shopService({
    secret: "s",
    metadata: {
      permissions: { "insert-row": { id: "*" }, "drop-table": { id: "*" } },
      databases: { shop: { tables: { log: { allow: { id: "alice" } } } } },
    },
  });
  const bob = auth(svc, "bob");
  const insert = await post(
    svc,
    "/shop/log/-/insert",
    { row: { message: "x" }, return: true },
    bob,
  );
  assert.equal(insert.status, 403);
  assert.deepEqual(errorsOf(insert), ["Permission denied"]);
  assert.equal((await post(svc, "/shop/log/-/drop", {}, bob)).status, 403);
  assert.equal(
    (await post(svc, "/shop/log/-/insert", { row: {} }, auth(svc, "alice"))).status,
    201,
  );
  assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 4);
});

Deno.test("bad tokens are a 401 JSON error, not an anonymous write", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/log/-/insert", { row: {} }, {
      authorization: "Bearer dstok_forged",
    });
    assert.equal(response.status, 401);
    assert.deepEqual(errorsOf(response), ["Invalid token signature"]);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
  });
});

Deno.test("browser sessions: same-site JSON posts work with the CSRF token; cross-site ones fail", async () => {
  await withWriter(async (svc) => {
    const session = { ds_actor: encodeActorCookie(svc.signer, { id: "writer" }) };
    const page = await svc.client.get("/shop/log", { cookies: session });
    const csrf = page.cookies.ds_csrftoken;
    assert.ok(csrf, "the table page with the insert form issues a CSRF token");
    assert.match(page.text, /id="insert-row"/);
    const cookies = { ...session, ds_csrftoken: csrf };
    const sameSite = await svc.client.post("/shop/log/-/insert", {
      json: { row: { message: "from the page" } },
      cookies,
      headers: { "x-csrftoken": csrf, "sec-fetch-site": "same-origin" },
    });
    assert.equal(sameSite.status, 201);
    const crossSite = await svc.client.post("/shop/log/-/insert", {
      json: { row: { message: "forged" } },
      cookies,
      headers: { "sec-fetch-site": "cross-site" },
    });
    assert.equal(crossSite.status, 403);
    const formPost = await svc.client.post("/shop/log/-/insert", {
      data: { row: "x" },
      cookies,
    });
    assert.equal(formPost.status, 403);
    assert.deepEqual(
      fileRows(svc, "select message from log where rowid > 3"),
      [{ message: "from the page" }],
    );
  });
});
