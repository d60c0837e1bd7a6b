/**
 * `_vitrine_history` is written by Vitrine only: every write path refuses it with a 403 that says
 * whose table it is, even for root holding every permission on it, and the recorded history is
 * left exactly as it was. Reading it stays subject to the usual permissions.
 */
import assert from "node:assert/strict";
import { auth, errorsOf, fileRows, post } from "../write/_write_helpers.ts";
import { SHOP_METADATA, shopService } from "../../fixtures/shop.ts";
import type { Service } from "../../../src/service.ts";
import type { ClientResponse } from "../../../src/http/client.ts";

const FORGED = "insert into _vitrine_history (database_name, table_name, pks, operation, " +
  "after, actor_id, time, request_id) values ('shop', 'products', '[1]', 'update', " +
  `'{"price":0}', 'alice', '2026-01-01T00:00:00.000Z', 'forged')`;

/** The shop with history kept in the file (or `history`), root on, and a canned forging query. */
function protectedShop(history = "database"): Service {
  const metadata = structuredClone(SHOP_METADATA);
  const shop = metadata.databases.shop;
  shop.history = history;
  shop.queries.forge = { sql: FORGED, write: true };
  // Configuration grants root the history's table page: only writes stay refused.
  shop.tables = { ...shop.tables, _vitrine_history: { allow: { id: "root" } } };
  return shopService({ secret: "protect-tests", root: true, metadata });
}

/** The history rows in the file, as they are. */
function historyRows(svc: Service): Record<string, unknown>[] {
  return fileRows(svc, "select * from _vitrine_history order by id");
}

function assertRefused(response: ClientResponse, what: string): void {
  assert.equal(response.status, 403, `${what}: ${response.status} ${response.text}`);
  assert.match(errorsOf(response)[0], /_vitrine_history is Vitrine's record of the changes/, what);
}

/** A shop with one recorded change in its file. */
async function shopWithHistory(history = "database"): Promise<Service> {
  const svc = protectedShop(history);
  const update = await post(svc, "/shop/products/1/-/update", { update: { price: 5 } }, root(svc));
  assert.equal(update.status, 200, update.text);
  return svc;
}

function root(svc: Service): Record<string, string> {
  return auth(svc, "root");
}

Deno.test("history protection: the write API refuses _vitrine_history, root included", async () => {
  await using svc = await shopWithHistory();
  const before = historyRows(svc);
  assert.equal(before.length, 1);
  const row = { database_name: "shop", table_name: "products", pks: "[1]", operation: "update" };
  const base = "/shop/_vitrine_history";
  const attempts: [string, unknown][] = [
    [`${base}/-/insert`, { row }],
    [`${base}/-/upsert`, { rows: [{ id: 1, ...row }] }],
    [`${base}/1/-/update`, { update: { actor_id: "alice" } }],
    [`${base}/1/-/delete`, {}],
    [`${base}/-/update-rows`, { rows: [{ id: 1, actor_id: "alice" }] }],
    [`${base}/-/delete-rows`, { rows: [1] }],
    [`${base}/-/alter`, { operations: [{ op: "add_column", name: "note", type: "text" }] }],
    [`${base}/-/set-column-type`, { column: "actor_id", column_type: "email" }],
    [`${base}/-/drop`, { confirm: true }],
    // The upload's requests: a new table of that name, or rows for it.
    ["/shop/-/create", { table: "_vitrine_history", rows: [row], pk: "id", ignore: true }],
    ["/shop/-/create", {
      table: "_VITRINE_HISTORY",
      rows: [{ id: 9, ...row }],
      pk: "id",
      replace: true,
    }],
  ];
  for (const [path, body] of attempts) {
    assertRefused(await post(svc, path, body, root(svc)), path);
  }
  // A browser upload's parts: appended to it, or making a new table of that name.
  for (const query of ["", "?create=1", "?create=1&pk=id"]) {
    const path = `${base}/-/upload${query}`;
    const part = await svc.client.post(path, {
      body: "id,database_name,table_name,pks,operation,time,request_id\n" +
        "9,shop,products,[1],update,2026-01-01,forged\n",
      headers: { "content-type": "text/csv", ...root(svc) },
    });
    assertRefused(part, path);
  }
  assert.deepEqual(historyRows(svc), before);
});

Deno.test("history protection: write SQL cannot write, alter, drop or trigger into it", async () => {
  await using svc = await shopWithHistory();
  const before = historyRows(svc);
  const statements = [
    FORGED,
    "update _vitrine_history set actor_id = 'alice'",
    "delete from main._vitrine_history",
    'delete from "_VITRINE_HISTORY"',
    "drop table _vitrine_history",
    "alter table _vitrine_history add column note text",
    "alter table _vitrine_history rename to old_history",
    "create index forged on _vitrine_history (actor_id)",
    "drop index _vitrine_history_row",
    "create trigger forged after delete on _vitrine_history begin select 1; end",
    "create temp table _vitrine_history (id integer)",
    // A trigger of another table writing into it, fired in the same batch.
    "create trigger forged after insert on log begin " +
    `${FORGED.replace("'forged')", "new.message)")}; end;\n` +
    "insert into log (message, level) values ('x', 'info')",
    // The same trigger made on its own, to fire later under someone else's write.
    "create trigger forged after insert on log begin " +
    `${FORGED.replace("'forged')", "new.message)")}; end`,
    "create view forged as select * from _vitrine_history where 0;\n" +
    "create trigger forged_insert instead of insert on forged begin " +
    `${FORGED}; end`,
  ];
  for (const sql of statements) {
    assertRefused(await post(svc, "/shop/-/execute-write", { sql }, root(svc)), sql);
    const dry = await post(svc, "/shop/-/execute-write", { sql, dry_run: true }, root(svc));
    assertRefused(dry, `dry run of ${sql}`);
  }
  assert.deepEqual(historyRows(svc), before);
  assert.deepEqual(
    fileRows(svc, "select name from sqlite_master where name like 'forged%'"),
    [],
  );
  // A view reading it writes nothing: made like any view.
  const view = await post(svc, "/shop/-/execute-write", {
    sql: "create view history_count as select count(*) as n from _vitrine_history",
  }, root(svc));
  assert.equal(view.status, 200, view.text);
  // Writes that leave it alone still run and are recorded, and it can still be read.
  const fine = await post(svc, "/shop/-/execute-write", {
    sql: "create trigger stamp after insert on log begin select 1; end;\n" +
      "insert into log (message, level) values ('fine', 'info')",
  }, root(svc));
  assert.equal(fine.status, 200, fine.text);
  assert.equal(historyRows(svc).length, 2);
  const read = await svc.client.get("/shop.json?sql=select+count(*)+as+n+from+_vitrine_history", {
    headers: root(svc),
  });
  assert.equal(read.status, 200, read.text);
});

Deno.test("history protection: nothing may make a _vitrine_history the history would trust", async () => {
  // History in the internal database: the file has no table of that name, and one made there
  // would be taken for the file's own history from then on.
  await using svc = protectedShop("internal");
  const statements = [
    "create table _vitrine_history (id integer primary key)",
    "create view _vitrine_history as select 1 as id",
    "create table fake (id integer primary key);\nalter table fake rename to _vitrine_history",
    "create table fake (id integer primary key);\nalter table fake rename to [_Vitrine_History]",
  ];
  for (const sql of statements) {
    assertRefused(await post(svc, "/shop/-/execute-write", { sql }, root(svc)), sql);
  }
  const made = fileRows(
    svc,
    "select name from sqlite_master where lower(name) in ('_vitrine_history', 'fake')",
  );
  assert.deepEqual(made, []);
});

Deno.test("history protection: a writable canned query cannot forge it", async () => {
  await using svc = await shopWithHistory();
  const before = historyRows(svc);
  const response = await svc.client.post("/shop/forge", {
    body: "{}",
    headers: { "content-type": "application/json", accept: "application/json", ...root(svc) },
  });
  assertRefused(response, "canned query");
  assert.deepEqual(historyRows(svc), before);
});

Deno.test("history protection: its table page offers no editing or upload", async () => {
  await using svc = await shopWithHistory();
  const page = await svc.client.get("/shop/_vitrine_history", { headers: root(svc) });
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /forged|products/);
  for (const offer of ["Insert row", "Drop table", "Alter table", "upload", "Paste rows"]) {
    assert.equal(page.text.includes(offer), false, offer);
  }
  // Its products table, next to it, still offers them.
  const products = await svc.client.get("/shop/products", { headers: root(svc) });
  assert.match(products.text, /Insert row/);
});

Deno.test("history protection: an alter renaming a table to its name is refused and leaves the table as it was", async () => {
  // With the history kept in the internal database, the file has no table of that name yet.
  await using svc = protectedShop("internal");
  const before = fileRows(svc, "select * from log order by rowid");
  for (const to of ["_vitrine_history", "_Vitrine_History"]) {
    const response = await post(svc, "/shop/log/-/alter", {
      operations: [{ op: "rename_table", args: { to } }],
    }, root(svc));
    // The alter commits its own transaction: refused after that, the rename was kept.
    assertRefused(response, `rename to ${to}`);
    assert.deepEqual(
      fileRows(svc, "select name from sqlite_master where lower(name) like '%history%'"),
      [],
    );
    assert.deepEqual(fileRows(svc, "select * from log order by rowid"), before);
  }
});
