/**
 * `/<db>/-/create` beyond the reference's shapes: more SQLite types, NOT NULL, defaults, compound
 * keys with foreign keys, typed columns, pasted CSV/TSV rows and dry runs; and every malformed
 * piece refused with a 400 that names it.
 */
import assert from "node:assert/strict";
import { errorsOf, fileRows, post, withWriter } from "./_write_helpers.ts";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";

const schemaOf = (svc: Parameters<typeof fileRows>[0], table: string) =>
  fileRows(svc, "select sql from sqlite_master where name = ?", [table])[0]?.sql ?? null;

Deno.test("create: compound primary key, foreign keys, NOT NULL and defaults", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/-/create", {
      table: "shipments",
      columns: [
        { name: "order_id", type: "text", not_null: true },
        { name: "product_id", type: "integer", not_null: true },
        { name: "quantity", type: "integer", not_null: true, default: 1 },
        { name: "status", type: "text", default: "it's new" },
        { name: "sent", type: "datetime", default_expr: "current_timestamp" },
      ],
      pks: ["order_id", "product_id"],
      foreign_keys: [
        { column: "order_id", fk_table: "orders" },
        { column: "product_id", fk_table: "products", fk_column: "id" },
      ],
    });
    assert.equal(response.status, 201, response.text);
    const schema = "CREATE TABLE [shipments] (\n" +
      "   [order_id] TEXT NOT NULL,\n" +
      "   [product_id] INTEGER NOT NULL,\n" +
      "   [quantity] INTEGER NOT NULL DEFAULT 1,\n" +
      "   [status] TEXT DEFAULT 'it''s new',\n" +
      "   [sent] DATETIME DEFAULT CURRENT_TIMESTAMP,\n" +
      "   PRIMARY KEY ([order_id], [product_id]),\n" +
      "   FOREIGN KEY ([order_id]) REFERENCES [orders]([id]),\n" +
      "   FOREIGN KEY ([product_id]) REFERENCES [products]([id])\n)";
    assert.equal(response.json().schema, schema);
    assert.equal(schemaOf(svc, "shipments"), schema);
    assert.deepEqual(
      fileRows(svc, 'select "from", "table", "to" from pragma_foreign_key_list(?) order by id', [
        "shipments",
      ]),
      [
        { from: "product_id", table: "products", to: "id" },
        { from: "order_id", table: "orders", to: "id" },
      ],
    );
    // The keys hold: a row pointing at no product is refused; defaults fill the rest.
    const bad = await post(svc, "/shop/shipments/-/insert", {
      row: { order_id: "A1", product_id: 9999 },
    });
    assert.equal(bad.status, 400);
    assert.match(errorsOf(bad)[0], /product_id/);
    const orderId = fileRows(svc, "select id from orders limit 1")[0].id;
    const good = await post(svc, "/shop/shipments/-/insert", {
      row: { order_id: orderId, product_id: 1 },
    });
    assert.equal(good.status, 201, good.text);
    const [row] = fileRows(svc, "select quantity, status, sent from shipments");
    assert.equal(row.quantity, 1);
    assert.equal(row.status, "it's new");
    assert.match(String(row.sent), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });
});

Deno.test("create: every SQLite type by name, and typed columns stored as their type needs", async () => {
  await withWriter(async (svc) => {
    const types = ["real", "numeric", "boolean", "date", "varchar", "decimal", "double", "bigint"];
    const response = await post(svc, "/shop/-/create", {
      table: "kinds",
      columns: [
        ...types.map((type) => ({ name: `c_${type}`, type })),
        { name: "contact", column_type: "email" },
        { name: "home", type: "text", column_type: "url" },
        { name: "INTEGER_upper", type: "INTEGER" },
      ],
      pk: "id",
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(
      fileRows(svc, "select name, type from pragma_table_info('kinds')").map((r) => r.type),
      ["INTEGER", ...types.map((t) => t.toUpperCase()), "TEXT", "TEXT", "INTEGER"],
    );
    // The column types are set: a bad email is refused naming the column.
    const bad = await post(svc, "/shop/kinds/-/insert", { row: { contact: "not an email" } });
    assert.equal(bad.status, 400);
    assert.match(errorsOf(bad).join(" "), /contact/);
    const json = await svc.client.get("/shop/kinds.json?_extra=column_types");
    assert.deepEqual(json.json().column_types, {
      contact: { type: "email", config: null },
      home: { type: "url", config: null },
    });
  });
});

Deno.test("create from pasted CSV: types inferred as the importer infers them, rows inserted", async () => {
  await withWriter(async (svc) => {
    const csv = "code,name,price,stock\n007,Bolt,1.5,10\n042,Nut,2,\n";
    const response = await post(svc, "/shop/-/create", { table: "parts", csv, pk: "code" });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.json().row_count, 2);
    assert.equal(
      schemaOf(svc, "parts"),
      "CREATE TABLE [parts] (\n   [code] TEXT PRIMARY KEY,\n   [name] TEXT,\n   [price] FLOAT,\n" +
        "   [stock] INTEGER\n)",
    );
    assert.deepEqual(fileRows(svc, "select * from parts order by code"), [
      { code: "007", name: "Bolt", price: 1.5, stock: 10 },
      { code: "042", name: "Nut", price: 2, stock: null },
    ]);
  });
});

Deno.test("create from pasted TSV with columns given: renamed, retyped, constrained, one transaction", async () => {
  await withWriter(async (svc) => {
    const columns = [
      { name: "sku", type: "text", not_null: true },
      { name: "label", type: "text" },
      { name: "category_id", type: "integer" },
      { name: "added", type: "text", default: "today" },
    ];
    const body = {
      table: "items",
      csv: "a\tb\tc\nX1\tFirst\t1\nX2\tSecond\t2\n",
      columns,
      pk: "sku",
      foreign_keys: [{ column: "category_id", fk_table: "categories" }],
    };
    // A dry run shows the statement, the schema and the columns, and leaves nothing behind.
    const preview = await post(svc, "/shop/-/create", { ...body, dry_run: true });
    assert.equal(preview.status, 200, preview.text);
    const shown = preview.json();
    assert.equal(shown.dry_run, true);
    assert.equal(shown.row_count, 2);
    assert.deepEqual(shown.statements, [shown.schema]);
    assert.match(
      shown.schema,
      /FOREIGN KEY \(\[category_id\]\) REFERENCES \[categories\]\(\[id\]\)/,
    );
    assert.deepEqual(shown.columns.map((c: { name: string }) => c.name), [
      "sku",
      "label",
      "category_id",
      "added",
    ]);
    assert.equal(schemaOf(svc, "items"), null);

    const created = await post(svc, "/shop/-/create", body);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fileRows(svc, "select * from items order by sku"), [
      { sku: "X1", label: "First", category_id: 1, added: "today" },
      { sku: "X2", label: "Second", category_id: 2, added: "today" },
    ]);

    // A row that breaks a constraint fails the whole create: no table, no rows.
    const failing = await post(svc, "/shop/-/create", {
      ...body,
      table: "items2",
      csv: "a\tb\tc\nX1\tFirst\t1\nX2\tSecond\t999\n",
    });
    assert.equal(failing.status, 400);
    assert.match(errorsOf(failing)[0], /FOREIGN KEY|category_id/);
    assert.equal(schemaOf(svc, "items2"), null);
  });
});

Deno.test("a dry run of pasted rows answers the inferred columns for the page to show", async () => {
  await withWriter(async (svc) => {
    const response = await post(svc, "/shop/-/create", {
      table: "guess",
      csv: "id,when,score\n1,2024-01-02,3.5\n",
      dry_run: true,
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json().columns, [
      { name: "id", type: "INTEGER", column_type: null },
      { name: "when", type: "TEXT", column_type: "date" },
      { name: "score", type: "FLOAT", column_type: null },
    ]);
    assert.equal(schemaOf(svc, "guess"), null);
  });
});

Deno.test("a table made from pasted rows keeps ISO dates as TEXT with the date column type", async () => {
  await withWriter(async (svc) => {
    const csv = "id,day,at,other\n1,2024-01-02,2024-01-02T10:00:00,2024-01-02\n" +
      "2,2024-02-29,2024-03-01 09:30,x\n";
    const response = await post(svc, "/shop/-/create", { table: "visits", csv });
    assert.equal(response.status, 201, response.text);
    assert.equal(
      schemaOf(svc, "visits"),
      "CREATE TABLE [visits] (\n   [id] INTEGER,\n   [day] TEXT,\n   [at] TEXT,\n" +
        "   [other] TEXT\n)",
    );
    const stored = await svc.column_type_store.forTable("shop", "visits");
    assert.deepEqual(Object.fromEntries(stored), {
      day: { type: "date", config: null },
      at: { type: "datetime", config: null },
    });
    assert.deepEqual(fileRows(svc, "select typeof(day) as t, day from visits"), [
      { t: "text", day: "2024-01-02" },
      { t: "text", day: "2024-02-29" },
    ]);
  });
});

Deno.test("create refuses bad pieces with a 400 naming them, and creates nothing", async () => {
  await withWriter(async (svc) => {
    const cols = [{ name: "a", type: "integer" }, { name: "b", type: "text" }];
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [
        { table: "t", columns: cols, foreign_keys: [{ column: "a", fk_table: "nowhere" }] },
        "Foreign key on a: there is no table nowhere",
      ],
      [
        {
          table: "t",
          columns: cols,
          foreign_keys: [{ column: "b", fk_table: "categories", fk_column: "name" }],
        },
        "Foreign key on b: categories.name is neither its primary key nor unique",
      ],
      [
        {
          table: "t",
          columns: cols,
          foreign_keys: [{ column: "b", fk_table: "categories", fk_column: "nope" }],
        },
        "Foreign key on b: categories has no column nope",
      ],
      [
        { table: "t", columns: cols, foreign_keys: [{ column: "a", fk_table: "order_items" }] },
        "Foreign key on a: order_items has no single primary key column; name one",
      ],
      [
        { table: "t", columns: cols, foreign_keys: [{ column: "zz", fk_table: "orders" }] },
        "Foreign key 1: no column zz in the table",
      ],
      [
        { table: "t", columns: cols, foreign_keys: [{ column: "a" }] },
        "Foreign key 1: fk_table is required",
      ],
      [{ table: "t", columns: cols, foreign_keys: "a" }, "foreign_keys must be a list"],
      [
        { table: "t", columns: [{ name: "a", default: [1] }] },
        "Column a: default must be a string, number or boolean",
      ],
      [
        { table: "t", columns: [{ name: "a", default_expr: "tomorrow" }] },
        /^Column a: default_expr must be one of current_timestamp/,
      ],
      [
        { table: "t", columns: [{ name: "a", not_null: "yes" }] },
        "Column a: not_null must be true or false",
      ],
      [{ table: "t", columns: [{ name: "a", size: 3 }] }, "Column a: unknown keys size"],
      [
        { table: "t", columns: [{ name: "a", column_type: "colour" }] },
        'Column a: unknown column type "colour"',
      ],
      [
        { table: "t", columns: [{ name: "a", type: "integer", column_type: "email" }] },
        "Column a: column type email needs a TEXT column, not INTEGER",
      ],
      [
        { table: "t", columns: cols, pks: ["a", "c"] },
        "Primary key columns missing from the columns: c",
      ],
      [{ table: "t", csv: 5 }, "csv must be text: a header row and rows"],
      [{ table: "t", csv: "a\n1", rows: [{ a: 1 }] }, "Cannot specify csv with rows or row"],
      [{ table: "t", csv: "  " }, "Nothing was pasted: give a header row and rows"],
      [
        { table: "t", csv: "a,b,c\n1,2,3", columns: cols },
        "The pasted rows have 3 columns but only 2 are given",
      ],
      [{ table: "t", csv: "a,b\n1,2,3\n" }, /^line 2: the row has 3 fields/],
      [{ table: "orders", csv: "a\n1\n" }, "table [orders] already exists"],
      [
        { table: "t", csv: "a\n" + "1\n".repeat(101) },
        "At most 100 rows can be pasted; import bigger files",
      ],
    ];
    for (const [body, message] of cases) {
      const response = await post(svc, "/shop/-/create", body);
      assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
      const [error] = errorsOf(response);
      if (typeof message === "string") assert.equal(error, message, JSON.stringify(body));
      else assert.match(error, message, JSON.stringify(body));
    }
    assert.equal(schemaOf(svc, "t"), null);
  });
});

Deno.test("a foreign key may point at a uniquely indexed column, or at its own table", async () => {
  await withWriter(async (svc) => {
    await svc.get_database("shop").execute_write(
      "create unique index categories_name on categories(name)",
    );
    const tagged = await post(svc, "/shop/-/create", {
      table: "tagged",
      columns: [{ name: "category", type: "text" }],
      foreign_keys: [{ column: "category", fk_table: "categories", fk_column: "name" }],
    });
    assert.equal(tagged.status, 201, tagged.text);
    const people = await post(svc, "/shop/-/create", {
      table: "people",
      columns: [{ name: "id", type: "integer" }, { name: "boss", type: "integer" }],
      pk: "id",
      foreign_keys: [{ column: "boss", fk_table: "people" }],
    });
    assert.equal(people.status, 201, people.text);
    assert.deepEqual(
      fileRows(
        svc,
        `select m.name as t, f."from", f."table", f."to" from sqlite_master m
           join pragma_foreign_key_list(m.name) f where m.name in ('tagged', 'people') order by t`,
      ),
      [
        { t: "people", from: "boss", table: "people", to: "id" },
        { t: "tagged", from: "category", table: "categories", to: "name" },
      ],
    );
    // The create page offers the uniquely indexed column as a target too.
    const page = await svc.client.get("/-/create-table?database=shop", {
      cookies: { ds_actor: encodeActorCookie(svc.signer, { id: "writer" }) },
    });
    const keys = page.text.match(/data-key-columns="([^"]*)" selected/)![1];
    assert.deepEqual(
      JSON.parse(keys.replaceAll("&#34;", '"').replaceAll("&quot;", '"')).categories,
      [
        "id",
        "name",
      ],
    );
  });
});
