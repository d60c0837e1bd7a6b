import assert from "node:assert/strict";
import { auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";

Deno.test("update sets the named columns only; return gives the row afterwards", async () => {
  await withWriter(async (svc) => {
    const plain = await post(svc, "/shop/products/2/-/update", { update: { price: 5 } });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json(), { ok: true });
    const returned = await post(svc, "/shop/products/2/-/update", {
      update: { notes: "", tags: null },
      return: true,
    });
    assert.equal(returned.status, 200);
    assert.deepEqual(returned.json().row, {
      id: 2,
      name: "Wooden spoon",
      category_id: 1,
      price: 5,
      tags: null,
      added: "2024-01-15",
      notes: "",
    });
    // A whole number in a REAL column reads back as the read API writes it.
    assert.match(returned.text, /"price":5\.0\b/);
    assert.deepEqual(
      fileRows(svc, "select price, typeof(notes) as notes_type, tags from products where id = 2"),
      [{ price: 5, notes_type: "text", tags: null }],
    );
    const page = await svc.client.get("/shop/products/2.json");
    assert.equal(page.json().rows[0].notes, "");
  });
});

Deno.test("update by tilde-encoded and compound keys, and of a key itself", async () => {
  await withWriter(async (svc) => {
    const encoded = await post(svc, "/shop/orders/A~2F1002/-/update", {
      update: { customer: "Grace H" },
      return: true,
    });
    assert.equal(encoded.status, 200);
    assert.deepEqual(encoded.json().row, {
      id: "A/1002",
      customer: "Grace H",
      placed: "2024-05-02",
    });
    const compound = await post(svc, "/shop/order_items/A~2F1001,2/-/update", {
      update: { quantity: 5 },
    });
    assert.equal(compound.status, 200);
    assert.deepEqual(
      fileRows(
        svc,
        "select quantity from order_items where order_id = 'A/1001' and product_id = 2",
      ),
      [{ quantity: 5 }],
    );
    // Changing the key: `return` finds the row under its new key. (Category 3's products point
    // at it, so its key cannot change while they do.)
    const referenced = await post(svc, "/shop/categories/3/-/update", { update: { id: 30 } });
    assert.equal(referenced.status, 400);
    assert.deepEqual(errorsOf(referenced), [
      "Cannot change the key: 2 rows in products (category_id) reference this row",
    ]);
    await post(svc, "/shop/categories/-/insert", { row: { id: 4, name: "Paint" } });
    const rekeyed = await post(svc, "/shop/categories/4/-/update", {
      update: { id: 40 },
      return: true,
    });
    assert.deepEqual(rekeyed.json().row, { id: 40, name: "Paint" });
    const rowid = await post(svc, "/shop/log/2/-/update", { update: { level: "x" }, return: true });
    assert.equal(rowid.json().row.rowid, 2);
    assert.equal(rowid.json().row.level, "x");
  });
});

Deno.test("update errors: body shape, unknown keys and columns, alter permission", async () => {
  await withWriter(async (svc) => {
    const cases: [unknown, number, string[]][] = [
      [[], 400, ["JSON must be a dictionary"]],
      [{}, 400, ["JSON must contain an update dictionary"]],
      [{ update: [1] }, 400, ["JSON must contain an update dictionary"]],
      [{ update: {}, bad_key: 1 }, 400, ["Invalid keys: bad_key"]],
      [{ update: { title2: "x" } }, 400, ["no such column: title2"]],
      [{ update: { name: null } }, 400, ["NOT NULL constraint failed: products.name"]],
    ];
    for (const [body, status, errors] of cases) {
      const response = await post(svc, "/shop/products/1/-/update", body);
      assert.equal(response.status, status, JSON.stringify(body));
      assert.deepEqual(errorsOf(response), errors);
    }
    const noAlter = auth(svc, "writer", { restrict_all: ["update-row"] });
    const refused = await post(svc, "/shop/products/1/-/update", {
      update: { colour: "red" },
      alter: true,
    }, noAlter);
    assert.equal(refused.status, 403);
    assert.deepEqual(errorsOf(refused), ["Permission denied for alter-table"]);
    const altered = await post(svc, "/shop/products/1/-/update", {
      update: { colour: "red" },
      alter: true,
      return: true,
    });
    assert.equal(altered.status, 200);
    assert.equal(altered.json().row.colour, "red");
    assert.deepEqual(fileRows(svc, "select name, colour from products where id = 1"), [
      { name: "Chef knife", colour: "red" },
    ]);
  });
});

Deno.test("delete removes the row: 200, gone over HTTP and from the file", async () => {
  await withWriter(async (svc) => {
    // Order B/2001's items go first: the order itself is then referenced by nothing.
    assert.equal((await post(svc, "/shop/order_items/B~2F2001,4/-/delete", {})).status, 200);
    assert.equal((await post(svc, "/shop/order_items/B~2F2001,8/-/delete", {})).status, 200);
    const response = await post(svc, "/shop/orders/B~2F2001/-/delete", {});
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { ok: true });
    assert.deepEqual(fileRows(svc, "select * from orders where id = 'B/2001'"), []);
    assert.equal((await svc.client.get("/shop/orders/B~2F2001.json")).status, 404);
    // No body at all is fine for a delete.
    const bare = await svc.client.post("/shop/log/1/-/delete", { headers: auth(svc) });
    assert.equal(bare.status, 200);
    assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 2);
  });
});

Deno.test("row URLs: wrong number of key values is a 400, a missing row a 404", async () => {
  await withWriter(async (svc) => {
    for (const action of ["update", "delete"]) {
      const body = action === "update" ? { update: { quantity: 1 } } : {};
      const short = await post(svc, `/shop/order_items/A~2F1001/-/${action}`, body);
      assert.equal(short.status, 400);
      assert.deepEqual(errorsOf(short), [
        "URL row identifier does not match the primary key for this table",
      ]);
      const long = await post(svc, `/shop/products/1,2/-/${action}`, body);
      assert.equal(long.status, 400);
      const missing = await post(svc, `/shop/products/999/-/${action}`, body);
      assert.equal(missing.status, 404);
      assert.deepEqual(errorsOf(missing), ["Record not found: 999"]);
      const table = await post(svc, `/shop/nope/1/-/${action}`, body);
      assert.deepEqual(errorsOf(table), ["Table not found: nope"]);
    }
  });
});

Deno.test("update needs update-row, delete needs delete-row", async () => {
  await withWriter(async (svc) => {
    const updateOnly = auth(svc, "writer", { restrict_all: ["update-row"] });
    const deleteOnly = auth(svc, "writer", { restrict_all: ["delete-row"] });
    const refusedUpdate = await post(svc, "/shop/products/1/-/update", {
      update: { price: 1 },
    }, deleteOnly);
    assert.equal(refusedUpdate.status, 403);
    assert.deepEqual(errorsOf(refusedUpdate), ["Permission denied: need update-row"]);
    const refusedDelete = await post(svc, "/shop/products/1/-/delete", {}, updateOnly);
    assert.equal(refusedDelete.status, 403);
    assert.deepEqual(errorsOf(refusedDelete), ["Permission denied: need delete-row"]);
    assert.deepEqual(fileRows(svc, "select price from products where id = 1"), [{ price: 34.5 }]);
    // Product 3 is in no order: its delete keeps every reference intact.
    assert.equal((await post(svc, "/shop/products/3/-/delete", {}, deleteOnly)).status, 200);
  });
});
