import assert from "node:assert/strict";
import { auth, errorsOf, fileRows, post } from "../write/_write_helpers.ts";
import { changesAt, historyService } from "./_history_helpers.ts";
import type { Service } from "../../../src/service.ts";
import { shopService } from "../../fixtures/shop.ts";
import { signedIn } from "../_auth_helpers.ts";

const REVERT = "/shop/-/history/-/revert";

function products(svc: Service) {
  return fileRows(svc, "select id, name, price from products order by id");
}

Deno.test("revert: one change by its id, recorded as a change that names it", async () => {
  await using svc = historyService();
  const before = products(svc);
  await post(svc, "/shop/products/1/-/update", { update: { name: "Knife", price: 12.0 } });
  const [change] = await changesAt(svc);
  const response = await post(svc, REVERT, { change_id: change.id });
  assert.equal(response.status, 200, response.text);
  const body = response.json();
  assert.deepEqual(body.reverted, [change.id]);
  assert.equal(body.message, `Reverted change ${change.id}`);
  assert.deepEqual(products(svc), before);
  // The REAL 34.5 came back as a REAL, the text as text.
  assert.deepEqual(
    fileRows(svc, "select typeof(price) as t, typeof(name) as n from products where id = 1"),
    [{ t: "real", n: "text" }],
  );
  const [revert, original] = await changesAt(svc);
  assert.equal(revert.reverts, change.id);
  assert.equal(original.reverted_by, revert.id);
  assert.deepEqual(revert.before, change.after);
  assert.deepEqual(revert.after, change.before);
  assert.equal(revert.request_id, body.request_id);
  // A revert is a change like any other: reverting it redoes the update.
  assert.equal((await post(svc, REVERT, { change_id: revert.id })).status, 200);
  assert.equal(fileRows(svc, "select name from products where id = 1")[0].name, "Knife");
});

Deno.test("revert: every change of one request, inserts, updates and deletes together", async () => {
  await using svc = historyService();
  const before = fileRows(svc, "select * from categories order by id");
  const items = fileRows(svc, "select * from order_items order by order_id, product_id");
  const batch = await post(svc, "/shop/-/execute-write", {
    sql: "insert into categories (id, name) values (20, 'New'), (21, 'Newer');\n" +
      "update categories set name = upper(name) where id < 20;\n" +
      "delete from order_items where order_id = 'A/1002'",
  });
  assert.equal(batch.status, 200, batch.text);
  const changes = await changesAt(svc);
  const requestId = changes[0].request_id;
  const response = await post(svc, REVERT, { request_id: requestId });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json().reverted.length, changes.length);
  assert.deepEqual(fileRows(svc, "select * from categories order by id"), before);
  assert.deepEqual(fileRows(svc, "select * from order_items order by order_id, product_id"), items);
});

/**
 * Inserts `count` categories (ids from 1000) in one request, reverts that request, and checks all
 * of them are gone.
 */
async function insertAndRevert(svc: Service, count: number): Promise<void> {
  const batch = await post(svc, "/shop/-/execute-write", {
    sql: `with recursive n(i) as (select 1000 union all select i + 1 from n where i < ${
      999 + count
    }) insert into categories (id, name) select i, 'c' || i from n`,
  });
  assert.equal(batch.status, 200, batch.text);
  const [last] = await changesAt(svc);
  const response = await post(svc, REVERT, { request_id: last.request_id });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json().reverted.length, count);
  assert.deepEqual(fileRows(svc, "select count(*) n from categories where id >= 1000"), [{ n: 0 }]);
}

Deno.test("revert: a request of 40,000 changes (an upload part's rows) is undone whole", async () => {
  await using svc = historyService();
  // More changes than SQLite takes bound variables in one statement (32,766).
  await insertAndRevert(svc, 40_000);
});

Deno.test("revert: Vitrine's own endpoint is not cut off by hook_time_limit_ms, which is for plugins", async () => {
  // Cut off, the client was told the revert failed (a 500 naming the setting) while it went on
  // and committed: a long revert on a loaded machine did.
  await using svc = historyService(null, {}, { hook_time_limit_ms: 1 });
  await insertAndRevert(svc, 5_000);
});

Deno.test("revert: refused with a 409 when the row changed since, and nothing is undone", async () => {
  await using svc = historyService();
  await post(svc, "/shop/products/-/upsert", {
    rows: [{ id: 1, price: 1 }, { id: 2, price: 2 }],
  });
  const upsert = await changesAt(svc);
  await post(svc, "/shop/products/2/-/update", { update: { price: 3 } });
  const response = await post(svc, REVERT, { request_id: upsert[0].request_id });
  assert.equal(response.status, 409);
  assert.match(
    errorsOf(response)[0],
    /^Change \d+ \(update of products row 2\) cannot be reverted: the row changed since/,
  );
  // Row 1 was not put back either: the whole revert was one transaction.
  assert.deepEqual(
    fileRows(svc, "select id, price from products where id in (1, 2) order by id"),
    [{ id: 1, price: 1 }, { id: 2, price: 3 }],
  );
  assert.equal((await changesAt(svc)).length, 3);
  // A deleted row whose key is taken again is refused too.
  await post(svc, "/shop/log/1/-/delete", {});
  const [deleted] = await changesAt(svc);
  await post(svc, "/shop/-/execute-write", {
    sql: "insert into log (rowid, message) values (1, 'squatter')",
  });
  const again = await post(svc, REVERT, { change_id: deleted.id });
  assert.equal(again.status, 409);
  assert.match(errorsOf(again)[0], /a row with its key exists again/);
});

Deno.test("revert: needs revert-change, and says what is wrong with a bad request", async () => {
  await using svc = historyService();
  await post(svc, "/shop/products/1/-/update", { update: { price: 1 } });
  const [change] = await changesAt(svc);
  const editor = await post(svc, REVERT, { change_id: change.id }, auth(svc, "editor"));
  assert.equal(editor.status, 403);
  assert.deepEqual(errorsOf(editor), ["Permission denied: need revert-change"]);
  const anonymous = await post(svc, REVERT, { change_id: change.id }, {});
  assert.equal(anonymous.status, 403);
  assert.equal(fileRows(svc, "select price from products where id = 1")[0].price, 1);
  const missing = await post(svc, REVERT, { change_id: 999 });
  assert.equal(missing.status, 404);
  assert.deepEqual(errorsOf(missing), ["Change 999 is not in the history of shop"]);
  const neither = await post(svc, REVERT, {});
  assert.equal(neither.status, 400);
  assert.match(errorsOf(neither)[0], /Pass either change_id/);
  assert.equal((await svc.client.get(REVERT)).status, 405);
  // The permission is listed with the others, denied unless granted.
  await using root = shopService({ secret: "s", root: true });
  const permissions = await root.client.get("/-/permissions.json", {
    cookies: signedIn(root, { id: "root" }),
  });
  assert.deepEqual(
    permissions.json().permissions.find((p: { name: string }) => p.name === "revert-change"),
    {
      name: "revert-change",
      abbr: "rvc",
      description: "Undo changes recorded in the history",
      takes_database: true,
      takes_resource: false,
      default: false,
    },
  );
});

Deno.test("revert: the history page's button undoes a change (form, CSRF-checked)", async () => {
  await using svc = historyService();
  await post(svc, "/shop/products/1/-/update", { update: { name: "Knife" } });
  const [change] = await changesAt(svc);
  const cookies = { ds_actor: svc.sign({ a: { id: "writer" } }, "actor") };
  const page = await svc.client.get("/shop/products/1/-/history", { cookies });
  const token = page.text.match(/name="csrftoken" value="([^"]+)"/)![1];
  const forged = await svc.client.post(REVERT, {
    data: { change_id: String(change.id) },
    cookies,
  });
  assert.equal(forged.status, 403);
  assert.equal(fileRows(svc, "select name from products where id = 1")[0].name, "Knife");
  const response = await svc.client.post(REVERT, {
    data: {
      csrftoken: token,
      change_id: String(change.id),
      return_to: "/shop/products/1/-/history",
    },
    cookies: { ...cookies, ...page.cookies },
  });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/shop/products/1/-/history");
  assert.equal(fileRows(svc, "select name from products where id = 1")[0].name, "Chef knife");
});

Deno.test("history in the database file: _vitrine_history travels with it", async () => {
  await using svc = historyService("database");
  await post(svc, "/shop/products/1/-/update", { update: { price: 5 } });
  const rows = fileRows(
    svc,
    "select table_name, pks, operation, before, after, actor_id from _vitrine_history",
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].table_name, "products");
  assert.equal(rows[0].pks, "[1]");
  assert.equal(rows[0].actor_id, "writer");
  assert.match(String(rows[0].before), /"price":34\.5/);
  assert.match(String(rows[0].after), /"price":5/);
  // Nothing went to the internal database.
  const internal = await svc.get_internal_database().execute_write_fn((conn) =>
    conn.query("select count(*) from sqlite_master where name = '_vitrine_history'").rows[0][0]
  );
  assert.equal(internal, 0);
  const [change] = await changesAt(svc);
  assert.equal((await post(svc, REVERT, { change_id: change.id })).status, 200);
  assert.equal(fileRows(svc, "select price from products where id = 1")[0].price, 34.5);
  assert.equal(fileRows(svc, "select count(*) as n from _vitrine_history")[0].n, 2);
  // The history table itself is neither listed nor shown as a table: it holds every table's
  // values, which the history pages show only to those who may see the table concerned.
  const tables = (await svc.client.get("/shop.json?_show_hidden=1")).json().tables;
  assert.equal(tables.some((t: { name: string }) => t.name === "_vitrine_history"), false);
  assert.equal((await svc.client.get("/shop/_vitrine_history")).status, 403);
  assert.equal((await svc.client.get("/shop/_vitrine_history.json")).status, 403);
});

Deno.test("history: off records nothing", async () => {
  await using svc = historyService("off");
  await post(svc, "/shop/products/1/-/update", { update: { price: 5 } });
  assert.deepEqual(await changesAt(svc), []);
});

Deno.test("revert: refused with a 409 naming the column when a recorded column was renamed", async () => {
  await using svc = historyService();
  await post(svc, "/shop/log/1/-/delete", {});
  await post(svc, "/shop/log/2/-/update", { update: { message: "edited" } });
  const [updated, deleted] = await changesAt(svc);
  const rename = await post(svc, "/shop/-/execute-write", {
    sql: "alter table log rename column message to text",
  });
  assert.equal(rename.status, 200, rename.text);
  // SQLite reads an unknown double-quoted name as a string: the update looked changed since,
  // and the delete's re-insert failed with a 500.
  for (const change of [updated, deleted]) {
    const response = await post(svc, REVERT, { change_id: change.id });
    assert.equal(response.status, 409, response.text);
    assert.match(
      errorsOf(response)[0],
      /^Change \d+ \((update|delete) of log row \d\) cannot be reverted: the table's columns changed since \(it has no column message\)$/,
    );
  }
  assert.equal(fileRows(svc, "select count(*) as n from log where rowid = 1")[0].n, 0);
});

Deno.test("revert: a column's type changed since by an alter is no conflict; a later edit still is", async () => {
  await using svc = historyService();
  const inserted = await post(svc, "/shop/log/-/insert", {
    row: { message: "disk full", level: "0042" },
    return: true,
  });
  assert.equal(inserted.status, 201, inserted.text);
  const rowid = inserted.json().rows[0].rowid;
  await post(svc, `/shop/log/${rowid}/-/update`, { update: { message: "disk nearly full" } });
  const [edit] = await changesAt(svc);
  // The alter stores the level "0042" as 42 (the INTEGER affinity): no edit of the row.
  const altered = await post(svc, "/shop/log/-/alter", {
    operations: [{ op: "alter_column", args: { name: "level", type: "integer" } }],
  });
  assert.equal(altered.status, 200, altered.text);
  const response = await post(svc, REVERT, { change_id: edit.id });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(
    fileRows(svc, `select message, level from log where rowid = ${rowid}`),
    [{ message: "disk full", level: 42 }],
  );
  // Reverting the revert redoes the edit; an edit since then is still a conflict.
  await post(svc, `/shop/log/${rowid}/-/update`, { update: { message: "Disk full" } });
  const [, revert] = await changesAt(svc);
  const refused = await post(svc, REVERT, { change_id: revert.id });
  assert.equal(refused.status, 409, refused.text);
});
