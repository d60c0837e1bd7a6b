import assert from "node:assert/strict";
import { auth, fileRows, post } from "../write/_write_helpers.ts";
import { changesAt, historyService } from "./_history_helpers.ts";
import { parse_metadata } from "../../../src/config/metadata.ts";

Deno.test("history: insert, upsert, update and delete are recorded with before and after", async () => {
  await using svc = historyService();
  assert.equal(
    (await post(svc, "/shop/categories/-/insert", { rows: [{ id: 9, name: "Paint" }] })).status,
    201,
  );
  const upsert = await post(svc, "/shop/products/-/upsert", {
    rows: [{ id: 1, price: 12.0 }, { id: 2, name: "Spoon" }],
  });
  assert.equal(upsert.status, 200, upsert.text);
  await post(svc, "/shop/categories/9/-/update", { update: { name: "Paints" } });
  assert.equal((await post(svc, "/shop/order_items/A~2F1001,2/-/delete", {})).status, 200);
  const changes = await changesAt(svc);
  assert.deepEqual(
    changes.map((c) => [c.operation, c.table, c.pks, c.actor]),
    [
      ["delete", "order_items", ["A/1001", 2], "writer"],
      ["update", "categories", [9], "writer"],
      ["update", "products", [2], "writer"],
      ["update", "products", [1], "writer"],
      ["insert", "categories", [9], "writer"],
    ],
  );
  const [deleted, updated, spoon, knife, inserted] = changes;
  assert.equal(inserted.before, null);
  assert.deepEqual(inserted.after, { id: 9, name: "Paint" });
  assert.deepEqual(updated.before, { id: 9, name: "Paint" });
  assert.deepEqual(updated.after, { id: 9, name: "Paints" });
  assert.equal(knife.before!.price, 34.5);
  assert.equal(knife.after!.price, 12);
  assert.equal(knife.after!.name, "Chef knife");
  assert.equal(spoon.after!.name, "Spoon");
  assert.deepEqual(deleted.after, null);
  assert.deepEqual(deleted.before, { order_id: "A/1001", product_id: 2, quantity: 3 });
  // One request, one id: both rows of the upsert share it; other requests have their own.
  assert.equal(spoon.request_id, knife.request_id);
  assert.notEqual(spoon.request_id, inserted.request_id);
  assert.equal(knife.request, "POST /shop/products/-/upsert");
  assert.match(knife.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // A REAL stays a REAL in the JSON: 12.0, not 12.
  const text = (await svc.client.get("/shop/products/1/-/history.json")).text;
  assert.match(text, /"after":\{"id":1,[^}]*"price":12\.0,/);
});

Deno.test("history: execute-write records every row its statements changed, under one request", async () => {
  await using svc = historyService();
  const response = await post(svc, "/shop/-/execute-write", {
    sql: "update products set price = price * 2 where category_id = 1;\n" +
      "insert into log (message, level) values ('doubled', 'info');\n" +
      "delete from order_items where order_id = 'A/1001'",
  });
  assert.equal(response.status, 200, response.text);
  const changes = await changesAt(svc);
  const kitchen = fileRows(svc, "select id from products where category_id = 1");
  const items = changes.filter((c) => c.table === "order_items");
  assert.ok(items.length >= 1 && items.every((c) => c.operation === "delete"));
  assert.equal(changes.filter((c) => c.table === "products").length, kitchen.length);
  const log = changes.find((c) => c.table === "log")!;
  assert.equal(log.operation, "insert");
  assert.equal(log.after!.message, "doubled");
  // A table without a primary key is keyed by rowid.
  assert.deepEqual(log.pks, [fileRows(svc, "select max(rowid) as r from log")[0].r]);
  assert.equal(new Set(changes.map((c) => c.request_id)).size, 1);
  assert.equal(changes[0].request, "POST /shop/-/execute-write");
  // A dry run changes nothing and records nothing.
  const dry = await post(svc, "/shop/-/execute-write", {
    sql: "delete from log",
    dry_run: true,
  });
  assert.equal(dry.status, 200, dry.text);
  assert.equal((await changesAt(svc)).length, changes.length);
});

Deno.test("history: a writable canned query's changes are recorded", async () => {
  await using svc = historyService();
  const response = await svc.client.post("/shop/add_log_entry", {
    body: JSON.stringify({ message: "restocked" }),
    headers: { "content-type": "application/json", accept: "application/json", ...auth(svc) },
  });
  assert.equal(response.status, 200, response.text);
  const [change] = await changesAt(svc);
  assert.equal(change.table, "log");
  assert.equal(change.operation, "insert");
  assert.deepEqual(change.after, { message: "restocked", level: "info" });
  assert.equal(change.actor, "writer");
  assert.equal(change.request, "POST /shop/add_log_entry");
});

Deno.test("history: a write that rolls back leaves no history", async () => {
  await using svc = historyService();
  // The second row breaks the primary key: the first is not kept, and neither is its history.
  const insert = await post(svc, "/shop/categories/-/insert", {
    rows: [{ id: 10, name: "Ten" }, { id: 1, name: "Clash" }],
  });
  assert.equal(insert.status, 400);
  const batch = await post(svc, "/shop/-/execute-write", {
    sql: "update products set price = 0; insert into nowhere values (1)",
  });
  assert.equal(batch.status, 400);
  assert.deepEqual(await changesAt(svc), []);
  assert.deepEqual(fileRows(svc, "select * from categories where id = 10"), []);
  // The internal database's history table holds nothing either.
  const count = await svc.get_internal_database().execute_write_fn((conn) => {
    const exists = conn.query("select 1 from sqlite_master where name = '_vitrine_history'");
    return exists.rows.length ? conn.query("select count(*) from _vitrine_history").rows[0][0] : 0;
  });
  assert.equal(count, 0);
});

Deno.test("history: row, table and database pages list what concerns them, paginated", async () => {
  await using svc = historyService();
  for (const price of [1, 2, 3]) {
    await post(svc, "/shop/products/1/-/update", { update: { price } });
  }
  await post(svc, "/shop/products/2/-/update", { update: { price: 9 } });
  await post(svc, "/shop/categories/1/-/update", { update: { name: "Cooking" } });
  assert.equal((await changesAt(svc, "/shop/products/1/-/history.json")).length, 3);
  assert.equal((await changesAt(svc, "/shop/products/-/history.json")).length, 4);
  assert.equal((await changesAt(svc, "/shop/-/history.json?table=categories")).length, 1);
  // The database page's filter offers the tables; the chosen one stays selected.
  const filtered = await svc.client.get("/shop/-/history?table=categories");
  assert.match(filtered.text, /<option selected>categories<\/option>/);
  assert.match(filtered.text, /<option>products<\/option>/);
  assert.match(filtered.text, /Showing only changes to <strong>categories<\/strong>/);
  const page = await svc.client.get("/shop/-/history.json?_size=2");
  const body = page.json();
  assert.equal(body.changes.length, 2);
  assert.equal(body.next, String(body.changes[1].id));
  const rest = await changesAt(svc, body.next_url);
  assert.deepEqual(rest.map((c) => c.id), [3, 2]);
  const requestId = rest[0].request_id;
  const one = await changesAt(svc, `/shop/-/history.json?request_id=${requestId}`);
  assert.deepEqual(one.map((c) => c.id), [3]);
  assert.equal((await svc.client.get("/shop/-/history.json?_size=0")).status, 400);
});

Deno.test("history: the HTML pages say what is recorded, and the row page links its history", async () => {
  await using svc = historyService();
  await post(svc, "/shop/products/1/-/update", { update: { name: "Knife" } });
  const row = await svc.client.get("/shop/products/1");
  assert.match(row.text, /<a href="\/shop\/products\/1\/-\/history">History of this row<\/a>/);
  const page = await svc.client.get("/shop/products/1/-/history");
  assert.equal(page.status, 200);
  assert.match(
    page.text,
    /Changes made by other programs writing to the database file directly\s+are not\s+recorded/,
  );
  assert.match(page.text, /<td class="history-before">Chef knife<\/td>/);
  assert.match(page.text, /<td class="history-after">Knife<\/td>/);
  // Anonymous visitors see the history but no undo buttons.
  assert.doesNotMatch(page.text, /Undo this change/);
  const signedIn = await svc.client.get("/shop/products/1/-/history", {
    cookies: { ds_actor: svc.sign({ a: { id: "writer" } }, "actor") },
  });
  assert.match(signedIn.text, /Undo this change/);
  // The database and table menus offer the history to those who may revert.
  for (const path of ["/shop", "/shop/products"]) {
    const menu = await svc.client.get(path, {
      cookies: { ds_actor: svc.sign({ a: { id: "writer" } }, "actor") },
    });
    assert.match(menu.text, new RegExp(`href="${path}/-/history"`));
    assert.doesNotMatch((await svc.client.get(path)).text, /-\/history"/);
  }
});

Deno.test("history: a bad history setting is refused at start-up", () => {
  assert.throws(
    () => parse_metadata('{"databases": {"shop": {"history": "sometimes"}}}'),
    /"history" of database "shop" must be one of internal, database, off/,
  );
});

Deno.test("history: changes to a table the actor may not see are left out", async () => {
  await using svc = historyService(null, { categories: { allow: { id: "writer" } } });
  await post(svc, "/shop/categories/1/-/update", { update: { name: "Secret" } });
  await post(svc, "/shop/products/1/-/update", { update: { name: "Knife" } });
  // Anonymous: only the products change, and no category history at all.
  assert.deepEqual((await changesAt(svc)).map((c) => c.table), ["products"]);
  assert.equal((await svc.client.get("/shop/categories/-/history.json")).status, 403);
  assert.equal((await svc.client.get("/shop/categories/1/-/history")).status, 403);
  const page = await svc.client.get("/shop/-/history");
  assert.doesNotMatch(page.text, /Secret|<option>categories/);
  // The actor allowed to see the table sees both.
  const writer = await svc.client.get("/shop/-/history.json", { headers: auth(svc) });
  assert.deepEqual(writer.json().changes.map((c: { table: string }) => c.table), [
    "products",
    "categories",
  ]);
});

Deno.test("history: bulk update and delete, and insert with replace, record every row", async () => {
  await using svc = historyService();
  const update = await post(svc, "/shop/products/-/update-rows", {
    pks: [4, 5],
    update: { notes: "Checked" },
  });
  assert.equal(update.status, 200, update.text);
  const remove = await post(svc, "/shop/log/-/delete-rows", { pks: [1, 2] });
  assert.equal(remove.status, 200, remove.text);
  const replace = await post(svc, "/shop/categories/-/insert", {
    rows: [{ id: 1, name: "Kitchenware" }],
    replace: true,
  });
  assert.equal(replace.status, 201, replace.text);
  const changes = await changesAt(svc);
  assert.deepEqual(changes.map((c) => [c.operation, c.table, c.pks]), [
    ["update", "categories", [1]],
    ["delete", "log", [2]],
    ["delete", "log", [1]],
    ["update", "products", [5]],
    ["update", "products", [4]],
  ]);
  assert.deepEqual(changes[0].before, { id: 1, name: "Kitchen" });
  assert.deepEqual(changes[0].after, { id: 1, name: "Kitchenware" });
  assert.equal(changes[3].request_id, changes[4].request_id);
  assert.equal(changes[3].request, "POST /shop/products/-/update-rows");
});

Deno.test("history: a page with no changes says so", async () => {
  await using svc = historyService();
  for (
    const path of ["/shop/-/history", "/shop/products/-/history", "/shop/products/1/-/history"]
  ) {
    const page = await svc.client.get(path);
    assert.equal(page.status, 200, path);
    assert.match(page.text, /<p\s+class="history-empty">No changes recorded here yet\.<\/p>/, path);
    assert.doesNotMatch(page.text, /<ol class="history-changes">/, path);
  }
});

Deno.test("history: delete dialogs say the history can undo a delete, to those who may revert", async () => {
  await using svc = historyService();
  const as = (id: string) => ({ cookies: { ds_actor: svc.sign({ a: { id } }, "actor") } });
  // writer may revert-change; editor may delete but not revert.
  const row = await svc.client.get("/shop/products/1", as("writer"));
  assert.match(row.text, /will be deleted\. The database's history can undo it\.<\/p>/);
  assert.match((await svc.client.get("/shop/products", as("writer"))).text, / data-undoable /);
  const editorRow = await svc.client.get("/shop/products/1", as("editor"));
  assert.match(editorRow.text, /will be deleted\. This cannot be undone\.<\/p>/);
  assert.doesNotMatch((await svc.client.get("/shop/products", as("editor"))).text, /data-undoable/);
  await using off = historyService("off");
  const offRow = await off.client.get("/shop/products/1", {
    cookies: { ds_actor: off.sign({ a: { id: "writer" } }, "actor") },
  });
  assert.match(offRow.text, /will be deleted\. This cannot be undone\.<\/p>/);
});

Deno.test("history: a table that is not there has no history page, a dropped one keeps its own", async () => {
  await using svc = historyService();
  for (const path of ["/shop/nosuch/-/history", "/shop/nosuch/1/-/history.json"]) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 404, path);
  }
  assert.equal(
    (await svc.client.get("/shop/nosuch/-/history.json")).json().error,
    "Table not found: nosuch",
  );
  await post(svc, "/shop/log/1/-/delete", {});
  await post(svc, "/shop/-/execute-write", { sql: "drop table log" });
  const dropped = await svc.client.get("/shop/log/-/history.json");
  assert.equal(dropped.status, 200);
  assert.equal(dropped.json().changes.length, 1);
});

Deno.test("history: NULL is marked, and NULL to the text 'null' is a change", async () => {
  await using svc = historyService();
  await post(svc, "/shop/products/8/-/update", { update: { notes: "null" } });
  const page = await svc.client.get("/shop/products/8/-/history");
  assert.match(
    page.text,
    /<tr class="history-changed">\s*<th scope="row">notes<\/th>\s*<td class="history-before"><em class="history-null">null<\/em><\/td>\s*<td class="history-after">null<\/td>/,
  );
});

Deno.test("history: a table dropped and created again by one write records the new table's rows, by their own columns", async () => {
  await using svc = historyService();
  const response = await post(svc, "/shop/-/execute-write", {
    sql: "create table notes (id integer primary key, body text);\n" +
      "insert into notes values (1, 'old one'), (2, 'old two');\n" +
      "update notes set body = 'changed' where id = 1;\n" +
      "alter table notes rename to old_notes;\n" +
      "create table notes (code text primary key, title text, size integer) without rowid;\n" +
      "insert into notes values ('b', 'new b', 2), ('a', 'new a', 1);\n" +
      // A table the file had: its rows changed, then it is made again WITHOUT ROWID.
      "update log set message = 'gone' where rowid = 1;\n" +
      "drop table log;\n" +
      "create table LOG (k integer primary key, other text) without rowid;\n" +
      "insert into log values (7, 'seven')",
  });
  assert.equal(response.status, 200, response.text);
  const changes = await changesAt(svc);
  const of = (table: string) =>
    changes.filter((c) => c.table === table)
      .map(({ operation, pks, before, after }) => ({ operation, pks, before, after }))
      .sort((a, b) => JSON.stringify(a.pks).localeCompare(JSON.stringify(b.pks)));
  // What the file holds now, and nothing of the table that is gone.
  assert.deepEqual(of("notes"), [
    {
      operation: "insert",
      pks: ["a"],
      before: null,
      after: { code: "a", title: "new a", size: 1 },
    },
    {
      operation: "insert",
      pks: ["b"],
      before: null,
      after: { code: "b", title: "new b", size: 2 },
    },
  ]);
  assert.deepEqual(of("LOG"), [
    { operation: "insert", pks: [7], before: null, after: { k: 7, other: "seven" } },
  ]);
});
