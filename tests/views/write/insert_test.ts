import assert from "node:assert/strict";
import { apiRows, auth, errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";

Deno.test("insert one row: 201 with the row, readable over HTTP and in the file", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/categories/-/insert", { row: { name: "Paint" } });
    assert.equal(response.status, 201);
    assert.deepEqual(response.json(), { ok: true, rows: [{ id: 4, name: "Paint" }] });
    assert.deepEqual(fileRows(svc, "select * from categories where id = 4"), [
      { id: 4, name: "Paint" },
    ]);
    const page = await svc.client.get("/shop/categories/4.json");
    assert.deepEqual(page.json().rows, [{ id: 4, name: "Paint" }]);
  });
});

Deno.test("insert rows: 201 {ok: true}; with return, the rows in order", async () => {
  await withWriter(async (svc) => {
    const plain = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "one", level: "info" }, { message: "two" }],
    });
    assert.equal(plain.status, 201);
    assert.deepEqual(plain.json(), { ok: true });
    const returned = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "three" }, { message: "four", level: "warn" }],
      return: true,
    });
    assert.equal(returned.status, 201);
    // A rowid table's rows come back with their rowid, so a client can address them.
    assert.deepEqual(returned.json().rows, [
      { rowid: 6, message: "three", level: null },
      { rowid: 7, message: "four", level: "warn" },
    ]);
    assert.deepEqual(
      fileRows(svc, "select rowid, message, level from log where rowid > 3 order by rowid"),
      [
        { rowid: 4, message: "one", level: "info" },
        { rowid: 5, message: "two", level: null },
        { rowid: 6, message: "three", level: null },
        { rowid: 7, message: "four", level: "warn" },
      ],
    );
  });
});

Deno.test("values keep their types: big integers, REALs written 1.0, JSON, booleans", async () => {
  await withWriter(async (svc) => {
    await post(svc, "/shop/-/create", {
      table: "typed",
      columns: [{ name: "id", type: "integer" }, { name: "anything", type: "blob" }],
      pk: "id",
    });
    const body = '{"rows": [' +
      '{"id": 1, "anything": 9007199254740993},' +
      '{"id": 2, "anything": 1.0},' +
      '{"id": 3, "anything": {"a": [1.5, 2.0, 9007199254740993]}},' +
      '{"id": 4, "anything": true},' +
      '{"id": 5, "anything": ""},' +
      '{"id": 6, "anything": null}' +
      '], "return": true}';
    const response = await post(svc, "/shop/typed/-/insert", body);
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(
      fileRows(svc, "select id, typeof(anything) as type, anything from typed order by id"),
      [
        { id: 1, type: "integer", anything: 9007199254740993n },
        { id: 2, type: "real", anything: 1 },
        { id: 3, type: "text", anything: '{"a":[1.5,2.0,9007199254740993]}' },
        { id: 4, type: "integer", anything: 1 },
        { id: 5, type: "text", anything: "" },
        { id: 6, type: "null", anything: null },
      ],
    );
    // The response writes the big integer exactly.
    assert.match(response.text, /"anything":9007199254740993\b/);
  });
});

Deno.test("a failed batch leaves the table exactly as before", async () => {
  await withWriter(async (svc) => {
    const before = fileRows(svc, "select rowid, * from categories order by rowid");
    const response = await post(svc, "/shop/categories/-/insert", {
      rows: [{ id: 10, name: "New" }, { id: 11, name: "Newer" }, { id: 1, name: "Clash" }],
    });
    assert.equal(response.status, 400);
    assert.deepEqual(errorsOf(response), ["UNIQUE constraint failed: categories.id"]);
    assert.deepEqual(fileRows(svc, "select rowid, * from categories order by rowid"), before);
    // A NOT NULL failure in the middle of a batch rolls back too.
    const notNull = await post(svc, "/shop/categories/-/insert", {
      rows: [{ id: 20, name: "Fine" }, { id: 21, name: null }],
    });
    assert.equal(notNull.status, 400);
    assert.deepEqual(errorsOf(notNull), ["NOT NULL constraint failed: categories.name"]);
    assert.deepEqual(await apiRows(svc, "categories"), before);
  });
});

Deno.test("ignore skips clashing rows and returns only the rows it inserted", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/categories/-/insert", {
      rows: [{ id: 1, name: "Clash" }, { id: 4, name: "Paint" }],
      ignore: true,
      return: true,
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.json().rows, [{ id: 4, name: "Paint" }]);
    assert.deepEqual(fileRows(svc, "select name from categories where id in (1, 4) order by id"), [
      { name: "Kitchen" },
      { name: "Paint" },
    ]);
  });
});

Deno.test("replace overwrites clashing rows and needs update-row", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/categories/-/insert", {
      rows: [{ id: 1, name: "Cookware" }],
      replace: true,
      return: true,
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.json().rows, [{ id: 1, name: "Cookware" }]);
    assert.deepEqual(fileRows(svc, "select name from categories where id = 1"), [
      { name: "Cookware" },
    ]);
    const insertOnly = auth(svc, "writer", { restrict_all: ["insert-row"] });
    const refused = await post(svc, "/shop/categories/-/insert", {
      rows: [{ id: 1, name: "Again" }],
      replace: true,
    }, insertOnly);
    assert.equal(refused.status, 403);
    assert.deepEqual(errorsOf(refused), ['Permission denied: need update-row to use "replace"']);
    assert.deepEqual(fileRows(svc, "select name from categories where id = 1"), [
      { name: "Cookware" },
    ]);
  });
});

Deno.test("alter adds missing columns (typed from the values) and needs alter-table", async () => {
  await withWriter(async (svc) => {
    const without = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "m", source: "cron", attempts: 2 }],
    });
    assert.equal(without.status, 400);
    assert.deepEqual(errorsOf(without), ["Row 0 has invalid columns: attempts, source"]);

    const noAlter = auth(svc, "writer", { restrict_all: ["insert-row"] });
    const refused = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "m", source: "cron" }],
      alter: true,
    }, noAlter);
    assert.equal(refused.status, 403);
    assert.deepEqual(errorsOf(refused), ["Permission denied for alter-table"]);

    const altered = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "m", source: "cron", attempts: 2, ratio: 0.5 }],
      alter: true,
      return: true,
    });
    assert.equal(altered.status, 201, altered.text);
    assert.deepEqual(altered.json().rows, [
      { rowid: 4, message: "m", level: null, source: "cron", attempts: 2, ratio: 0.5 },
    ]);
    assert.deepEqual(
      fileRows(svc, "select name, type from pragma_table_info('log') where cid >= 2"),
      [
        { name: "source", type: "TEXT" },
        { name: "attempts", type: "INTEGER" },
        { name: "ratio", type: "FLOAT" },
      ],
    );
    // The schema caches forgot the old columns: the table page lists the new ones.
    const columns = await svc.client.get("/shop/log.json?_extra=columns");
    assert.deepEqual(columns.json().columns, [
      "rowid",
      "message",
      "level",
      "source",
      "attempts",
      "ratio",
    ]);
  });
});

Deno.test("an empty row inserts the column defaults; an empty list inserts nothing", async () => {
  await withWriter(async (svc) => {
    const empty = await post(svc, "/shop/log/-/insert", { row: {} });
    assert.equal(empty.status, 201);
    assert.deepEqual(empty.json().rows, [{ rowid: 4, message: null, level: null }]);
    const none = await post(svc, "/shop/log/-/insert", { rows: [] });
    assert.equal(none.status, 201);
    assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 4);
  });
});

Deno.test("more rows than max_insert_rows is a 400; the setting raises the limit", async () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ message: `m${i}` }));
  await withWriter(async (svc) => {
    const tooMany = await post(svc, "/shop/log/-/insert", { rows: rows(101) });
    assert.equal(tooMany.status, 400);
    assert.deepEqual(errorsOf(tooMany), ["Too many rows, maximum allowed is 100"]);
    assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 3);
    assert.equal((await post(svc, "/shop/log/-/insert", { rows: rows(100) })).status, 201);
  });
  await withWriter(async (svc) => {
    assert.equal((await post(svc, "/shop/log/-/insert", { rows: rows(101) })).status, 201);
    const limited = await post(svc, "/shop/log/-/insert", { rows: rows(201) });
    assert.deepEqual(errorsOf(limited), ["Too many rows, maximum allowed is 200"]);
  }, { settings: { max_insert_rows: 200 } });
});

Deno.test("bodies the API cannot use get the reference's 400 messages", async () => {
  await withWriter(async (svc) => {
    const cases: [unknown, string[]][] = [
      ["{bad json", [
        "Invalid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
      ]],
      [[], ["JSON must be a dictionary"]],
      [{ row: "blah" }, ['"row" must be a dictionary']],
      [{ blah: "blah" }, ['JSON must have one or other of "row" or "rows"']],
      [{ row: {}, rows: [] }, ['Cannot use "row" and "rows" at the same time']],
      [{ rows: "blah" }, ['"rows" must be a list']],
      [{ rows: ["blah"] }, ['"rows" must be a list of dictionaries']],
      [{ rows: [], returning: true, also: 1 }, ['Invalid parameter: "also", "returning"']],
      [{ rows: [], ignore: true, replace: true }, [
        'Cannot use "ignore" and "replace" at the same time',
      ]],
      [{ rows: [{ message: "x", bad: 1 }, { worse: 2 }] }, [
        "Row 0 has invalid columns: bad",
        "Row 1 has invalid columns: worse",
      ]],
    ];
    for (const [body, errors] of cases) {
      const response = await post(svc, "/shop/log/-/insert", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(errorsOf(response), errors);
      assert.equal(response.json().error, errors.join("; "));
    }
    const textPlain = await svc.client.post("/shop/log/-/insert", {
      body: '{"row": {}}',
      headers: { ...auth(svc), "content-type": "text/plain" },
    });
    assert.equal(textPlain.status, 400);
    assert.deepEqual(errorsOf(textPlain), ["Invalid content-type, must be application/json"]);
    const noType = await svc.client.post("/shop/log/-/insert", {
      body: '{"row": {}}',
      headers: auth(svc),
    });
    assert.equal(noType.status, 400);
    assert.deepEqual(errorsOf(noType), ["Invalid content-type, must be application/json"]);
    assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 3);
  });
});

Deno.test("missing database, table or a view: 404 naming what is missing", async () => {
  await withWriter(async (svc) => {
    const cases: [string, string][] = [
      ["/nope/log/-/insert", "Database not found: nope"],
      ["/shop/nope/-/insert", "Table not found: nope"],
      ["/shop/cheap_products/-/insert", "Table not found: cheap_products"],
      ["/shop/nope/-/upsert", "Table not found: nope"],
    ];
    for (const [path, message] of cases) {
      const response = await post(svc, path, { row: {} });
      assert.equal(response.status, 404, path);
      assert.deepEqual(errorsOf(response), [message]);
    }
  });
});

Deno.test("GET on a write URL is a JSON 405 naming POST", async () => {
  await withWriter(async (svc) => {
    for (
      const path of [
        "/shop/log/-/insert",
        "/shop/log/-/upsert",
        "/shop/log/-/drop",
        "/shop/-/create",
        "/shop/products/1/-/update",
        "/shop/products/1/-/delete",
      ]
    ) {
      const response = await svc.client.get(path);
      assert.equal(response.status, 405, path);
      assert.deepEqual(errorsOf(response), ["Method not allowed"]);
      assert.equal(response.headers.get("allow"), "POST, OPTIONS");
    }
  });
});

Deno.test("immutable databases refuse every write with a 403", async () => {
  const { buildShopDb } = await import("../../fixtures/shop.ts");
  await withWriter(async (svc) => {
    const cases: [string, unknown][] = [
      ["/shop/log/-/insert", { row: { message: "x" } }],
      ["/shop/log/-/upsert", { rows: [{ rowid: 1, message: "x" }] }],
      ["/shop/products/1/-/update", { update: { name: "x" } }],
      ["/shop/products/1/-/delete", {}],
      ["/shop/-/create", { table: "t", columns: [{ name: "a" }] }],
      ["/shop/log/-/drop", { confirm: true }],
    ];
    for (const [path, body] of cases) {
      const response = await post(svc, path, body);
      assert.equal(response.status, 403, path);
      assert.deepEqual(errorsOf(response), ["Database is immutable"]);
    }
    assert.equal(fileRows(svc, "select count(*) as n from log")[0].n, 3);
  }, { files: [], immutables: [buildShopDb()] });
});
