import assert from "node:assert/strict";
import { apiRows, auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";

const schemaOf = (svc: Parameters<typeof fileRows>[0], table: string) =>
  fileRows(svc, "select sql from sqlite_master where name = ?", [table])[0]?.sql ?? null;

Deno.test("create from columns: 201 with URLs and the schema, an id added for pk id", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/-/create", {
      table: "one",
      columns: [
        { name: "title", type: "text" },
        { name: "score", type: "integer" },
        { name: "weight", type: "float" },
        { name: "thumbnail", type: "blob" },
        { name: "note" },
      ],
      pk: "id",
    });
    assert.equal(response.status, 201);
    const schema = "CREATE TABLE [one] (\n   [id] INTEGER PRIMARY KEY,\n   [title] TEXT,\n" +
      "   [score] INTEGER,\n   [weight] FLOAT,\n   [thumbnail] BLOB,\n   [note] TEXT\n)";
    assert.deepEqual(response.json(), {
      ok: true,
      database: "shop",
      table: "one",
      table_url: "http://localhost/shop/one",
      table_api_url: "http://localhost/shop/one.json",
      schema,
    });
    assert.equal(schemaOf(svc, "one"), schema);
    // Schema caches and the database page know the new table at once.
    const database = await svc.client.get("/shop.json");
    assert.ok(database.json().tables.some((t: { name: string }) => t.name === "one"));
    assert.deepEqual(await apiRows(svc, "one"), []);
  });
});

Deno.test("create from rows: types inferred, rows inserted, compound keys", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/-/create", {
      table: "two",
      rows: [{ id: 1, title: "Row 1", score: 1.5 }, {
        id: 2,
        title: "Row 2",
        score: 2,
        extra: true,
      }],
      pk: "id",
    });
    assert.equal(response.status, 201);
    assert.equal(response.json().row_count, 2);
    assert.equal(
      response.json().schema,
      "CREATE TABLE [two] (\n   [id] INTEGER PRIMARY KEY,\n   [title] TEXT,\n   [score] FLOAT,\n" +
        "   [extra] INTEGER\n)",
    );
    assert.deepEqual(fileRows(svc, "select * from two order by id"), [
      { id: 1, title: "Row 1", score: 1.5, extra: null },
      { id: 2, title: "Row 2", score: 2, extra: 1 },
    ]);
    const five = await post(svc, "/shop/-/create", {
      table: "five",
      row: { type: "article", key: 123, title: "Article 1" },
      pks: ["type", "key"],
    });
    assert.equal(
      five.json().schema,
      "CREATE TABLE [five] (\n   [type] TEXT,\n   [key] INTEGER,\n   [title] TEXT,\n" +
        "   PRIMARY KEY ([type], [key])\n)",
    );
    const rowid = await post(svc, "/shop/-/create", { table: "four", row: { name: "Row 1" } });
    assert.equal(rowid.json().schema, "CREATE TABLE [four] (\n   [name] TEXT\n)");
    assert.equal(rowid.json().row_count, 1);
  });
});

Deno.test("create for a table that exists: rows go in, pk and columns form refused", async () => {
  await withWriter(async (svc) => {
    const first = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 1, name: "a" }],
      pk: "id",
    });
    assert.equal(first.status, 201);
    const again = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 2, name: "b" }],
      pk: "id",
    });
    assert.equal(again.status, 201);
    assert.equal(again.json().row_count, 1);
    const clash = await post(svc, "/shop/-/create", { table: "twice", rows: [{ id: 1 }] });
    assert.equal(clash.status, 400);
    assert.deepEqual(errorsOf(clash), ["UNIQUE constraint failed: twice.id"]);
    const ignored = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 1, name: "x" }, { id: 3, name: "c" }],
      pk: "id",
      ignore: true,
    });
    assert.equal(ignored.status, 201);
    const replaced = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 1, name: "z" }],
      pk: "id",
      replace: true,
    });
    assert.equal(replaced.status, 201);
    assert.deepEqual(fileRows(svc, "select * from twice order by id"), [
      { id: 1, name: "z" },
      { id: 2, name: "b" },
      { id: 3, name: "c" },
    ]);
    const otherPk = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 4 }],
      pk: "name",
    });
    assert.deepEqual(errorsOf(otherPk), ["pk cannot be changed for existing table"]);
    const columns = await post(svc, "/shop/-/create", { table: "twice", columns: [{ name: "a" }] });
    assert.deepEqual(errorsOf(columns), ["table [twice] already exists"]);
    const newColumn = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 5, x: 1 }],
    });
    assert.deepEqual(errorsOf(newColumn), ["table twice has no column named x"]);
    const altered = await post(svc, "/shop/-/create", {
      table: "twice",
      rows: [{ id: 5, x: 1 }],
      alter: true,
    });
    assert.equal(altered.status, 201);
    assert.deepEqual(fileRows(svc, "select x from twice where id = 5"), [{ x: 1 }]);
  });
});

Deno.test("a failed create leaves no table behind", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/-/create", {
      table: "doomed",
      rows: [{ id: 1 }, { id: 1 }],
      pk: "id",
    });
    assert.equal(response.status, 400);
    assert.deepEqual(errorsOf(response), ["UNIQUE constraint failed: doomed.id"]);
    assert.equal(schemaOf(svc, "doomed"), null);
    assert.equal((await svc.client.get("/shop/doomed.json")).status, 404);
  });
});

Deno.test("create validates its body with the reference's messages", async () => {
  await withWriter(async (svc) => {
    const cases: [unknown, string][] = [
      [[], "JSON must be an object"],
      [{ table: "t", columns: [{ name: "a" }], nope: 1 }, "Invalid keys: nope"],
      [{ row: { id: 1 } }, "Table is required"],
      [{ table: "sqlite_x", row: { id: 1 } }, "Invalid table name"],
      [{ table: "a\nb", row: { id: 1 } }, "Invalid table name"],
      [{ table: "t" }, "columns, rows or row is required"],
      [{ table: "t", rows: [{ a: 1 }], row: { a: 1 } }, "Cannot specify both rows and row"],
      [
        { table: "t", columns: [{ name: "a" }], row: { a: 1 } },
        "Cannot specify columns with rows or row",
      ],
      [{ table: "t", columns: "a" }, "columns must be a list"],
      [{ table: "t", columns: ["a"] }, "columns must be a list of objects"],
      [{ table: "t", columns: [{ type: "text" }] }, "Column name is required"],
      [{ table: "t", columns: [{ name: "a\nb" }] }, 'Invalid column name: "a\\nb"'],
      [{ table: "t", columns: [{ name: "a", type: "bad" }] }, "Unsupported column type: bad"],
      [{ table: "t", columns: [{ name: "id" }, { name: "id" }] }, "Duplicate column name: id"],
      [{ table: "t", rows: "x" }, "rows must be a list"],
      [{ table: "t", rows: ["x"] }, "rows must be a list of objects"],
      [{ table: "t", row: { "a\nb": 1 } }, 'Invalid column name: "a\\nb"'],
      [{ table: "t", row: { a: 1 }, pk: 1 }, "pk must be a string"],
      [{ table: "t", row: { a: 1 }, pk: "a", pks: ["a"] }, "Cannot specify both pk and pks"],
      [{ table: "t", row: { a: 1 }, pks: "a" }, "pks must be a list"],
      [{ table: "t", row: { a: 1 }, pks: [1] }, "pks must be a list of strings"],
      [
        { table: "t", row: { a: 1 }, pk: "a", ignore: true, replace: true },
        "ignore and replace are mutually exclusive",
      ],
      [
        { table: "t", columns: [{ name: "a" }], pk: "a", ignore: true },
        "ignore and replace require row or rows",
      ],
      [{ table: "t", row: { a: 1 }, replace: true }, "ignore and replace require pk or pks"],
    ];
    for (const [body, message] of cases) {
      const response = await post(svc, "/shop/-/create", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(errorsOf(response), [message]);
    }
    assert.equal(schemaOf(svc, "t"), null);
  });
});

Deno.test("create needs create-table; rows need insert-row, replace update-row, alter alter-table", async () => {
  await withWriter(async (svc) => {
    const only = (...actions: string[]) => auth(svc, "writer", { restrict_all: actions });
    const cases: [Record<string, string>, unknown, number, string[] | null][] = [
      [only("insert-row"), { table: "t1", columns: [{ name: "c" }] }, 403, [
        "Permission denied: need create-table",
      ]],
      [only("create-table"), { table: "t2", columns: [{ name: "c" }] }, 201, null],
      [only("create-table"), { table: "t3", rows: [{ c: 1 }] }, 403, [
        "Permission denied: need insert-row",
      ]],
      [only("create-table", "insert-row"), { table: "t4", rows: [{ c: 1 }] }, 201, null],
      [
        only("create-table", "insert-row"),
        {
          table: "t4",
          rows: [{ c: 1 }],
          pk: "c",
          replace: true,
        },
        403,
        ["Permission denied: need update-row"],
      ],
      [only("create-table", "insert-row"), { table: "t4", rows: [{ d: 1 }], alter: true }, 403, [
        "Permission denied: need alter-table",
      ]],
    ];
    for (const [headers, body, status, errors] of cases) {
      const response = await post(svc, "/shop/-/create", body, headers);
      assert.equal(response.status, status, JSON.stringify(body));
      if (errors) assert.deepEqual(errorsOf(response), errors);
    }
    assert.equal(schemaOf(svc, "t1"), null);
    assert.equal(schemaOf(svc, "t3"), null);
  });
});

Deno.test("drop without confirm says how many rows would go; with it, the table goes", async () => {
  await withWriter(async (svc) => {
    for (const body of ["", "{}", "not json", '{"confirm": "yes"}']) {
      const response = await svc.client.post("/shop/log/-/drop", {
        body,
        headers: { ...auth(svc), "content-type": "application/json" },
      });
      assert.equal(response.status, 200, body);
      assert.deepEqual(response.json(), {
        ok: true,
        database: "shop",
        table: "log",
        row_count: 3,
        message: 'Pass "confirm": true to confirm',
      });
    }
    assert.notEqual(schemaOf(svc, "log"), null);
    const dropped = await post(svc, "/shop/log/-/drop", { confirm: true });
    assert.equal(dropped.status, 200);
    assert.deepEqual(dropped.json(), { ok: true });
    assert.equal(schemaOf(svc, "log"), null);
    assert.equal((await svc.client.get("/shop/log.json")).status, 404);
    const database = await svc.client.get("/shop.json");
    assert.ok(!database.json().tables.some((t: { name: string }) => t.name === "log"));
    const again = await post(svc, "/shop/log/-/drop", { confirm: true });
    assert.equal(again.status, 404);
    assert.deepEqual(errorsOf(again), ["Table not found: log"]);
  });
});

Deno.test("drop needs drop-table, even to learn the row count", async () => {
  await withWriter(async (svc) => {
    const insertOnly = auth(svc, "writer", { restrict_all: ["insert-row"] });
    for (const body of [{}, { confirm: true }]) {
      const response = await post(svc, "/shop/log/-/drop", body, insertOnly);
      assert.equal(response.status, 403);
      assert.deepEqual(errorsOf(response), ["Permission denied: need drop-table"]);
    }
    assert.notEqual(schemaOf(svc, "log"), null);
  });
});
