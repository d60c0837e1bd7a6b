/**
 * Every write through the JSON API (which the edit forms use too) is checked against the
 * column's declared type, NOT NULL, CHECK and foreign keys; a refused write is a 400 that names
 * the column, and a batch with one bad row writes nothing.
 */
import assert from "node:assert/strict";
import { fileRows, post, withWriter } from "./_write_helpers.ts";
import type { Service } from "../../../src/service.ts";
import type { ClientResponse } from "../../../src/http/client.ts";

function refused(response: ClientResponse, pattern: RegExp): void {
  assert.equal(response.status, 400, response.text);
  const body = response.json();
  assert.equal(body.ok, false);
  assert.match(body.errors.join("\n"), pattern);
}

const productCount = (svc: Service) =>
  Number(fileRows(svc, "select count(*) as n from products")[0].n);

Deno.test("a value that is not a number is refused in a numeric column, naming it", async () => {
  await withWriter(async (svc) => {
    refused(
      await post(svc, "/shop/products/1/-/update", { update: { price: "abc" } }),
      /^Column price is REAL: "abc" is not a number$/,
    );
    refused(
      await post(svc, "/shop/products/-/insert", { row: { name: "Rake", category_id: "two" } }),
      /Column category_id is INTEGER: "two" is not a number/,
    );
    // A list or object would be stored as JSON text: not a number either.
    refused(
      await post(svc, "/shop/order_items/-/upsert", {
        rows: [{ order_id: "A/1001", product_id: 1, quantity: [2] }],
      }),
      /Column quantity is INTEGER: "\[2\]" is not a number/,
    );
    assert.deepEqual(fileRows(svc, "select price from products where id = 1"), [{ price: 34.5 }]);
    // Text that SQLite converts (" 12 ", "1e3") is a number; text columns take anything.
    const ok = await post(svc, "/shop/products/2/-/update", {
      update: { price: " 12 ", notes: 12, name: "Spoon" },
      return: true,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(fileRows(svc, "select price, notes from products where id = 2"), [
      { price: 12, notes: "12" },
    ]);
  });
});

Deno.test("one bad row in a batch writes nothing, and the error says which row", async () => {
  await withWriter(async (svc) => {
    const before = productCount(svc);
    const rows = [
      { name: "Rake", price: 3 },
      { name: "Spade", price: "cheap" },
      { name: "Fork", price: 4 },
    ];
    refused(
      await post(svc, "/shop/products/-/insert", { rows }),
      /^Row 2: column price is REAL: "cheap" is not a number$/,
    );
    refused(
      await post(svc, "/shop/products/-/insert", { rows: [{ name: "Rake" }, { name: null }] }),
      /NOT NULL constraint failed: products\.name/,
    );
    assert.equal(productCount(svc), before);
  });
});

Deno.test("foreign keys: a reference to nothing is refused, naming column, value and table", async () => {
  await withWriter(async (svc) => {
    refused(
      await post(svc, "/shop/products/1/-/update", { update: { category_id: 99999 } }),
      /^Column category_id: 99999 matches no id in categories$/,
    );
    refused(
      await post(svc, "/shop/products/-/insert", {
        rows: [{ name: "Rake", category_id: 2 }, { name: "Hoe", category_id: 42 }],
      }),
      /^Row 2: column category_id: 42 matches no id in categories$/,
    );
    refused(
      await post(svc, "/shop/order_items/-/insert", {
        row: { order_id: "Z/1", product_id: 1, quantity: 1 },
      }),
      /Column order_id: "Z\/1" matches no id in orders/,
    );
    assert.deepEqual(fileRows(svc, "select category_id from products where id = 1"), [
      { category_id: 1 },
    ]);
    // A key that exists, or NULL, is fine.
    const ok = await post(svc, "/shop/products/1/-/update", { update: { category_id: 3 } });
    assert.equal(ok.status, 200, ok.text);
    const none = await post(svc, "/shop/products/1/-/update", { update: { category_id: null } });
    assert.equal(none.status, 200, none.text);
  });
});

Deno.test("deleting a row others point at is refused with how many rows, and where", async () => {
  await withWriter(async (svc) => {
    refused(
      await post(svc, "/shop/categories/2/-/delete", {}),
      /^Cannot delete: 3 rows in products \(category_id\) reference this row$/,
    );
    assert.equal(fileRows(svc, "select count(*) as n from categories where id = 2")[0].n, 1);
    const free = await post(svc, "/shop/products/9/-/delete", {});
    assert.equal(free.status, 200, free.text);
  });
});

Deno.test("CHECK constraints are enforced, naming the constraint", async () => {
  await withWriter(async (svc) => {
    const created = await post(svc, "/shop/-/create", {
      table: "stock",
      columns: [{ name: "id", type: "integer" }, { name: "qty", type: "integer" }],
      pk: "id",
    });
    assert.equal(created.status, 201, created.text);
    const db = svc.get_database("shop");
    await db.execute_write(
      "create table checked (id integer primary key, qty integer constraint qty_positive " +
        "check (qty > 0))",
    );
    refused(
      await post(svc, "/shop/checked/-/insert", { row: { qty: -1 } }),
      /CHECK constraint failed: qty_positive/,
    );
  });
});

Deno.test("text stays welcome where SQLite files keep text in NUMERIC-affinity columns", async () => {
  await withWriter(async (svc) => {
    await svc.get_database("shop").execute_write(
      "create table events (id integer primary key, at DATETIME, done BOOLEAN, meta JSON, " +
        "amount DECIMAL(10, 2), spot POINT)",
    );
    const ok = await post(svc, "/shop/events/-/insert", {
      row: { at: "2024-05-01 10:00", done: "yes", meta: { a: 1 }, amount: "12.50", spot: "x" },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(
      fileRows(svc, "select at, done, meta, amount, typeof(amount) as t from events"),
      [{ at: "2024-05-01 10:00", done: "yes", meta: '{"a":1}', amount: 12.5, t: "real" }],
    );
    refused(
      await post(svc, "/shop/events/-/insert", { row: { amount: "a lot" } }),
      /^Column amount is DECIMAL\(10, 2\): "a lot" is not a number$/,
    );
  });
});
