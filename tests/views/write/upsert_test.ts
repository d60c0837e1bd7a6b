import assert from "node:assert/strict";
import { apiRows, auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";

Deno.test("upsert updates rows that exist, inserts the others; 200; unnamed columns kept", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/products/-/upsert", {
      rows: [
        { id: 1, price: 30 },
        { id: 2, name: "Ladle", notes: null },
        { id: 50, name: "Apron", price: 11.5 },
      ],
      return: true,
    });
    assert.equal(response.status, 200);
    const rows = response.json().rows;
    assert.deepEqual(rows.map((row: Record<string, unknown>) => [row.id, row.name, row.price]), [
      [1, "Chef knife", 30],
      [2, "Ladle", 4.25],
      [50, "Apron", 11.5],
    ]);
    assert.deepEqual(
      fileRows(svc, "select id, name, price, tags, notes from products where id in (1, 2, 50)"),
      [
        {
          id: 1,
          name: "Chef knife",
          price: 30,
          tags: '["steel","sharp"]',
          notes: "Hand wash only",
        },
        { id: 2, name: "Ladle", price: 4.25, tags: '["wood"]', notes: null },
        { id: 50, name: "Apron", price: 11.5, tags: null, notes: null },
      ],
    );
    const plain = await post(svc, "/shop/products/-/upsert", { row: { id: 1, price: 31 } });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json().rows.map((row: { price: number }) => row.price), [31]);
  });
});

Deno.test("upsert by rowid and by a compound key", async () => {
  await withWriter(async (svc) => {
    const byRowid = await post(svc, "/shop/log/-/upsert", {
      rows: [{ rowid: 1, level: "debug" }, { rowid: 40, message: "new" }],
      return: true,
    });
    assert.equal(byRowid.status, 200);
    assert.deepEqual(byRowid.json().rows[1], { rowid: 40, message: "new", level: null });
    assert.deepEqual(fileRows(svc, "select rowid, level from log where rowid in (1, 40)"), [
      { rowid: 1, level: "debug" },
      { rowid: 40, level: null },
    ]);
    const compound = await post(svc, "/shop/order_items/-/upsert", {
      rows: [
        { order_id: "A/1001", product_id: 1, quantity: 9 },
        { order_id: "B/2001", product_id: 2, quantity: 1 },
      ],
    });
    assert.equal(compound.status, 200, compound.text);
    assert.deepEqual(
      fileRows(
        svc,
        "select * from order_items where (order_id, product_id) in (values ('A/1001', 1), ('B/2001', 2))",
      ),
      [
        { order_id: "A/1001", product_id: 1, quantity: 9 },
        { order_id: "B/2001", product_id: 2, quantity: 1 },
      ],
    );
  });
});

Deno.test("every upserted row names its key, and no key is null", async () => {
  await withWriter(async (svc) => {
    const before = await apiRows(svc, "order_items");
    const response = await post(svc, "/shop/order_items/-/upsert", {
      rows: [
        { order_id: "A/1001", quantity: 1 },
        { order_id: null, product_id: 2, quantity: 1 },
        { quantity: 3 },
      ],
    });
    assert.equal(response.status, 400);
    assert.deepEqual(errorsOf(response), [
      'Row 0 is missing primary key column(s): "product_id"',
      'Row 1 has null primary key column(s): "order_id"',
      'Row 2 is missing primary key column(s): "order_id", "product_id"',
    ]);
    const rowid = await post(svc, "/shop/log/-/upsert", { rows: [{ message: "x" }] });
    assert.deepEqual(errorsOf(rowid), ['Row 0 is missing primary key column(s): "rowid"']);
    assert.deepEqual(await apiRows(svc, "order_items"), before);
  });
});

Deno.test("upsert refuses ignore and replace; alter adds columns", async () => {
  await withWriter(async (svc) => {
    for (const option of ["ignore", "replace"]) {
      const response = await post(svc, "/shop/categories/-/upsert", {
        rows: [{ id: 1, name: "x" }],
        [option]: true,
      });
      assert.equal(response.status, 400);
      assert.deepEqual(errorsOf(response), ["Upsert does not support ignore or replace"]);
    }
    const altered = await post(svc, "/shop/categories/-/upsert", {
      rows: [{ id: 1, colour: "red" }],
      alter: true,
      return: true,
    });
    assert.equal(altered.status, 200, altered.text);
    assert.deepEqual(altered.json().rows, [{ id: 1, name: "Kitchen", colour: "red" }]);
  });
});

Deno.test("upsert needs both insert-row and update-row", async () => {
  await withWriter(async (svc) => {
    for (const only of ["insert-row", "update-row"]) {
      const headers = auth(svc, "writer", { restrict_all: [only] });
      const response = await post(svc, "/shop/categories/-/upsert", {
        rows: [{ id: 1, name: "x" }],
      }, headers);
      assert.equal(response.status, 403, only);
      assert.deepEqual(errorsOf(response), [
        "Permission denied: need both insert-row and update-row",
      ]);
    }
    const both = auth(svc, "writer", { restrict_all: ["insert-row", "update-row"] });
    const ok = await post(svc, "/shop/categories/-/upsert", { rows: [{ id: 1, name: "x" }] }, both);
    assert.equal(ok.status, 200);
    assert.deepEqual(fileRows(svc, "select name from categories where id = 1"), [{ name: "x" }]);
  });
});
