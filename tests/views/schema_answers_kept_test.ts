/**
 * Table and row pages keep what they derive from the schema (a table's facts, its row query) for
 * as long as the schema cache hands out the same answers. These tests change the schema of a
 * mutable file between pages and check that the next page follows.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { makeRows, rowKeys } from "../../src/db/results.ts";

Deno.test("a column added between two table pages is on the second", async () => {
  await using svc = shopService();
  const before = await (await svc.client.get("/shop/categories.json")).json();
  assert.ok(!Object.keys(before.rows[0]).includes("slug"));
  await svc.get_database("shop").execute_write("alter table categories add column slug text");
  const after = await (await svc.client.get("/shop/categories.json")).json();
  assert.deepEqual(Object.keys(after.rows[0]).slice(-1), ["slug"]);
  assert.ok(after.rows.every((row: Record<string, unknown>) => row.slug === null));
});

Deno.test("a table rebuilt with another primary key is addressed by it on the next row page", async () => {
  await using svc = shopService();
  const db = svc.get_database("shop");
  await db.execute_write_script(
    "create table codes (code text primary key, label text);" +
      "insert into codes values ('a', 'first'), ('b', 'second');",
  );
  const byCode = await (await svc.client.get("/shop/codes/b.json")).json();
  assert.deepEqual([byCode.primary_keys, byCode.rows[0].label], [["code"], "second"]);
  await db.execute_write_script(
    "drop table codes; create table codes (label text, code text);" +
      "insert into codes values ('third', 'c');",
  );
  const byRowid = await (await svc.client.get("/shop/codes/1.json")).json();
  assert.deepEqual(byRowid.primary_keys, ["rowid"]);
  assert.deepEqual(byRowid.rows, [{ rowid: 1, label: "third", code: "c" }]);
  assert.equal((await svc.client.get("/shop/codes/b.json")).status, 404);
});

Deno.test("rowKeys are the keys of toObject(): names in order, the first of duplicates", () => {
  const [row] = makeRows(["rowid", "id", "name", "id"], [[1, 2, "x", 3]]);
  assert.deepEqual([...rowKeys(row)], Object.keys(row.toObject()));
  assert.deepEqual([...rowKeys(row)], ["rowid", "id", "name"]);
  assert.ok(Object.isFrozen(rowKeys(row)), "shared by every row of its column list");
});
