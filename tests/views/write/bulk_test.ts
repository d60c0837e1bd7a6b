import assert from "node:assert/strict";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";
import type { Service } from "../../../src/service.ts";
import { auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";

/**
 * The whole database as the `sqlite3` command line dumps it, and the file's bytes once the
 * write-ahead log is checkpointed into it (committed writes may wait in the log).
 */
function fileState(svc: Service): { dump: string; bytes: Uint8Array } {
  const path = svc.get_database("shop").path!;
  const args = [path, "PRAGMA wal_checkpoint(TRUNCATE);", ".dump"];
  const out = new Deno.Command("sqlite3", { args }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return { dump: new TextDecoder().decode(out.stdout), bytes: Deno.readFileSync(path) };
}

Deno.test("bulk update sets one column on every listed row in one request", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/products/-/update-rows", {
      pks: [1, "2", 9],
      update: { notes: "Checked" },
      return: true,
    });
    assert.equal(response.status, 200);
    const body = response.json();
    assert.equal(body.ok, true);
    assert.equal(body.count, 3);
    assert.deepEqual(body.rows.map((row: { id: number }) => row.id), [1, 2, 9]);
    assert.deepEqual(
      fileRows(svc, "select id from products where notes = 'Checked' order by id"),
      [{ id: 1 }, { id: 2 }, { id: 9 }],
    );
    // Compound keys are lists; a REAL column keeps its type.
    const compound = await post(svc, "/shop/order_items/-/update-rows", {
      pks: [["A/1001", 1], ["A/1001", "2"]],
      update: { quantity: 5 },
    });
    assert.equal(compound.status, 200);
    assert.deepEqual(compound.json(), { ok: true, count: 2 });
    assert.deepEqual(
      fileRows(svc, "select product_id, quantity from order_items where order_id = 'A/1001'"),
      [{ product_id: 1, quantity: 5 }, { product_id: 2, quantity: 5 }],
    );
    // Rowid tables are keyed by rowid.
    const log = await post(svc, "/shop/log/-/update-rows", { pks: [1, 2], update: { level: "x" } });
    assert.equal(log.status, 200);
    assert.deepEqual(fileRows(svc, "select count(*) as n from log where level = 'x'"), [{ n: 2 }]);
  });
});

Deno.test("bulk delete removes every listed row, each key once", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/products/-/delete-rows", { pks: [3, 7, 9, 3] });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { ok: true, count: 3 });
    assert.deepEqual(
      fileRows(svc, "select id from products where id in (3, 7, 9)"),
      [],
    );
    assert.deepEqual(fileRows(svc, "select count(*) as n from products"), [{ n: 6 }]);
  });
});

Deno.test("bulk writes are all or nothing: one bad row leaves the file byte-identical", async () => {
  await withWriter(async (svc) => {
    // The first write opens the write connection, which sets up the file: then it stays put.
    const warm = await post(svc, "/shop/log/-/update-rows", {
      pks: [1],
      update: { level: "warm" },
    });
    assert.equal(warm.status, 200);
    const before = fileState(svc);
    // Product 1 is in an order (order_items references it): deleting it fails, after 3 and 7.
    const referenced = await post(svc, "/shop/products/-/delete-rows", { pks: [3, 7, 1, 9] });
    assert.equal(referenced.status, 400);
    assert.match(errorsOf(referenced)[0], /^Row id=1: Cannot delete: .*order_items/);
    const missing = await post(svc, "/shop/products/-/delete-rows", { pks: [3, 404] });
    assert.equal(missing.status, 400);
    assert.deepEqual(errorsOf(missing), ["Row id=404: record not found"]);
    // NOT NULL fails on the first row; an integer column refuses text on the second.
    const notNull = await post(svc, "/shop/products/-/update-rows", {
      pks: [2, 5],
      update: { name: null },
    });
    assert.equal(notNull.status, 400);
    assert.match(errorsOf(notNull)[0], /^Row id=2: .*NOT NULL/);
    const missingUpdate = await post(svc, "/shop/products/-/update-rows", {
      pks: [2, 5, 77],
      update: { notes: "half" },
    });
    assert.equal(missingUpdate.status, 400);
    assert.deepEqual(errorsOf(missingUpdate), ["Row id=77: record not found"]);
    const after = fileState(svc);
    assert.equal(after.dump, before.dump);
    assert.deepEqual(after.bytes, before.bytes);
  });
});

Deno.test("bulk endpoints: body errors name what is wrong", async () => {
  await withWriter(async (svc) => {
    const cases: [string, unknown, string][] = [
      [
        "update",
        { update: { notes: "x" } },
        'JSON must contain a "pks" list naming at least one row',
      ],
      [
        "update",
        { pks: [], update: { notes: "x" } },
        'JSON must contain a "pks" list naming at least one row',
      ],
      [
        "update",
        { pks: [1] },
        'JSON must contain an "update" dictionary naming at least one column',
      ],
      ["update", { pks: [1], update: { nope: 1 } }, "Invalid columns: nope"],
      ["update", { pks: [1], update: { notes: 1 }, alter: true }, "Invalid keys: alter"],
      ["delete", { pks: [[1, 2]] }, "pks[0] does not match the primary key (id): give its value"],
      [
        "delete",
        { pks: [{ id: 1 }] },
        "pks[0] does not match the primary key (id): give its value",
      ],
      ["delete", { pks: [null] }, "pks[0] does not match the primary key (id): give its value"],
    ];
    for (const [action, body, message] of cases) {
      const response = await post(svc, `/shop/products/-/${action}-rows`, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(errorsOf(response), [message]);
    }
    const compound = await post(svc, "/shop/order_items/-/delete-rows", { pks: ["A/1001"] });
    assert.deepEqual(errorsOf(compound), [
      "pks[0] does not match the primary key (order_id, product_id): give a list of 2 values",
    ]);
    const view = await post(svc, "/shop/cheap_products/-/delete-rows", { pks: [1] });
    assert.equal(view.status, 404);
    assert.deepEqual(errorsOf(view), ["Table not found: cheap_products"]);
    const get = await svc.client.get("/shop/products/-/delete-rows");
    assert.equal(get.status, 405);
  });
});

Deno.test("bulk endpoints need update-row / delete-row; anonymous actors are refused", async () => {
  await withWriter(async (svc) => {
    const before = fileState(svc);
    const updateOnly = auth(svc, "writer", { restrict_all: ["update-row"] });
    const deleteOnly = auth(svc, "writer", { restrict_all: ["delete-row"] });
    const refusedDelete = await post(svc, "/shop/products/-/delete-rows", { pks: [3] }, updateOnly);
    assert.equal(refusedDelete.status, 403);
    assert.deepEqual(errorsOf(refusedDelete), ["Permission denied: need delete-row"]);
    const refusedUpdate = await post(svc, "/shop/products/-/update-rows", {
      pks: [3],
      update: { notes: "x" },
    }, deleteOnly);
    assert.deepEqual(errorsOf(refusedUpdate), ["Permission denied: need update-row"]);
    for (const action of ["update", "delete"]) {
      const body = { pks: [3], update: { notes: "x" } };
      const anonymous = await post(svc, `/shop/products/-/${action}-rows`, body, {});
      assert.equal(anonymous.status, 403);
    }
    assert.deepEqual(fileState(svc).dump, before.dump);
  });
});

Deno.test("bulk endpoints from a browser session need the CSRF token", async () => {
  await withWriter(async (svc) => {
    const session = { ds_actor: encodeActorCookie(svc.signer, { id: "writer" }) };
    const page = await svc.client.get("/shop/products", { cookies: session });
    const csrf = page.cookies.ds_csrftoken;
    assert.ok(csrf);
    const cookies = { ...session, ds_csrftoken: csrf };
    const forged = await svc.client.post("/shop/products/-/delete-rows", {
      json: { pks: [3] },
      cookies,
      headers: { "sec-fetch-site": "cross-site" },
    });
    assert.equal(forged.status, 403);
    assert.deepEqual(fileRows(svc, "select id from products where id = 3"), [{ id: 3 }]);
    const sameSite = await svc.client.post("/shop/products/-/delete-rows", {
      json: { pks: [3] },
      cookies,
      headers: { "x-csrftoken": csrf, "sec-fetch-site": "same-origin" },
    });
    assert.equal(sameSite.status, 200);
    assert.deepEqual(fileRows(svc, "select id from products where id = 3"), []);
  });
});
