import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { connectionRunner, primaryKeys } from "../../src/db/introspect.ts";
import { ftsContentTable } from "../../src/db/introspect_detect.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { makeDbFile, SHOP_SCHEMA, tempDir, testHost } from "./helpers.ts";

const EXTRA = `
create table places (code text primary key, title text);
create table tags (id integer primary key, tag text);
create unique index tags_tag on tags(tag);
create table people (id integer primary key, email text, age integer);
create unique index people_email on people(email);
create table notes_fts_src (body text);
create virtual table notes_fts using fts4(body);
`;

async function withShop(fn: (db: Database) => Promise<void>, tables = {}): Promise<void> {
  const { dir, cleanup } = tempDir();
  const host = testHost({ tables: { shop: tables } });
  const db = new Database(host, {
    path: makeDbFile(dir, "shop.db", SHOP_SCHEMA + EXTRA + "analyze;"),
    is_mutable: false,
  });
  try {
    await fn(db);
  } finally {
    db.close();
    host.close();
    cleanup();
  }
}

Deno.test("table and view names, existence", async () => {
  await withShop(async (db) => {
    const tables = await db.table_names();
    for (const t of ["categories", "orders", "products", "order_items", "log", "products_fts"]) {
      assert.ok(tables.includes(t), t);
    }
    assert.deepEqual(await db.view_names(), ["cheap_products"]);
    assert.equal(await db.table_exists("products"), true);
    assert.equal(await db.table_exists("cheap_products"), false);
    assert.equal(await db.view_exists("cheap_products"), true);
    assert.equal(await db.table_exists("Products "), false);
  });
});

Deno.test("columns, details and primary keys", async () => {
  await withShop(async (db) => {
    assert.deepEqual(await db.table_columns("products"), [
      "id",
      "name",
      "category_id",
      "price",
      "tags",
      "added",
      "notes",
    ]);
    assert.deepEqual(await db.table_columns("products_fts"), ["name", "products_fts", "rank"]);
    assert.deepEqual(await db.table_columns("cheap_products"), ["id", "name", "price"]);
    const details = await db.table_column_details("order_items");
    assert.deepEqual(details.map((d) => d.toObject()), [
      {
        cid: 0,
        name: "order_id",
        type: "TEXT",
        notnull: 1,
        default_value: null,
        is_pk: 1,
        hidden: 0,
      },
      {
        cid: 1,
        name: "product_id",
        type: "INTEGER",
        notnull: 1,
        default_value: null,
        is_pk: 1,
        hidden: 0,
      },
      {
        cid: 2,
        name: "quantity",
        type: "INTEGER",
        notnull: 1,
        default_value: null,
        is_pk: 0,
        hidden: 0,
      },
    ]);
    assert.equal(details[0][1], "order_id");
    assert.deepEqual(await db.primary_keys("order_items"), ["order_id", "product_id"]);
    assert.deepEqual(await db.primary_keys("products"), ["id"]);
    assert.deepEqual(await db.primary_keys("log"), []);
    assert.deepEqual(await db.primary_keys("products_fts_idx"), ["segid", "term"]);
  });
});

Deno.test("full-text tables and hidden tables", async () => {
  await withShop(async (db) => {
    assert.equal(await db.fts_table("products"), "products_fts");
    assert.equal(await db.fts_table("products_fts"), "products_fts");
    assert.equal(await db.fts_table("categories"), null);
    const hidden = (await db.hidden_table_names()).sort();
    assert.deepEqual(
      hidden,
      [
        "products_fts",
        "products_fts_config",
        "products_fts_data",
        "products_fts_docsize",
        "products_fts_idx",
        // FTS4 shadow tables; notes_fts itself stays (no content table called "notes").
        "notes_fts_content",
        "notes_fts_docsize",
        "notes_fts_segdir",
        "notes_fts_segments",
        "notes_fts_stat",
        "sqlite_stat1",
      ].sort(),
    );
  });
  await withShop(async (db) => {
    assert.ok((await db.hidden_table_names()).includes("log"));
    assert.equal(await db.fts_table("log"), "products_fts");
  }, { log: { hidden: true, fts_table: "products_fts" } });
});

Deno.test("label columns", async () => {
  await withShop(async (db) => {
    assert.equal(await db.label_column_for_table("categories"), "name");
    assert.equal(await db.label_column_for_table("places"), "title");
    assert.equal(await db.label_column_for_table("tags"), "tag");
    assert.equal(await db.label_column_for_table("people"), "email");
    assert.equal(await db.label_column_for_table("order_items"), null);
    assert.equal(await db.label_column_for_table("orders"), null);
  });
  await withShop(async (db) => {
    assert.equal(await db.label_column_for_table("orders"), "customer");
  }, { orders: { label_column: "customer" } });
});

Deno.test("foreign keys", async () => {
  await withShop(async (db) => {
    assert.deepEqual(await db.foreign_keys_for_table("products"), [
      { column: "category_id", other_table: "categories", other_column: "id" },
    ]);
    const all = await db.get_all_foreign_keys();
    assert.deepEqual(all.categories, {
      incoming: [{ other_table: "products", column: "id", other_column: "category_id" }],
      outgoing: [],
    });
    assert.deepEqual(all.order_items.outgoing.map((fk) => fk.other_table).sort(), [
      "orders",
      "products",
    ]);
    assert.deepEqual(all.log, { incoming: [], outgoing: [] });
  });
});

Deno.test("table and view definitions", async () => {
  await withShop(async (db) => {
    assert.equal(
      await db.get_table_definition("tags"),
      "CREATE TABLE tags (id integer primary key, tag text);\n" +
        "CREATE UNIQUE INDEX tags_tag on tags(tag);",
    );
    assert.match(
      (await db.get_view_definition("cheap_products"))!,
      /^CREATE VIEW cheap_products AS/,
    );
    assert.equal(await db.get_table_definition("missing"), null);
    assert.deepEqual(await db.attached_databases(), []);
  });
});

Deno.test("introspection works on a plain connection too", async () => {
  const conn = Connection.open(":memory:");
  try {
    conn.exec("create table t (a, b, primary key (b, a))");
    assert.deepEqual(await primaryKeys(connectionRunner(conn), "t"), ["b", "a"]);
  } finally {
    conn.close();
  }
});

Deno.test("content= option parsing", () => {
  assert.equal(
    ftsContentTable(`create virtual table x using fts5(a, content="my ""t""")`),
    'my "t"',
  );
  assert.equal(ftsContentTable("create virtual table x using fts4(a, content=[t])"), "t");
  assert.equal(
    ftsContentTable("create virtual table x using fts5(a, content='', content_rowid=id)"),
    null,
  );
  assert.equal(ftsContentTable("create virtual table x using fts5(a)"), null);
});
