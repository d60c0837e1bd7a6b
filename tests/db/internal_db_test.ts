import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { openInternalDatabase, refreshCatalog } from "../../src/db/internal_db.ts";
import { makeDbFile, SHOP_SCHEMA, tempDir, testHost } from "./helpers.ts";

Deno.test("the catalog describes attached databases and follows schema changes", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const { db: internal, ready } = openInternalDatabase(host);
  await ready;
  const shop = new Database(host, { path: makeDbFile(dir, "shop.db", SHOP_SCHEMA) });
  const scratch = new Database(host, { memory_name: "catalog_scratch" });
  try {
    assert.equal(internal.name, "_internal");
    await scratch.execute_write("create table s (id integer primary key)");
    await refreshCatalog(internal, [shop, scratch]);
    const databases = await internal.execute(
      "select database_name, is_memory from catalog_databases order by database_name",
    );
    assert.deepEqual(databases.dicts(), [
      { database_name: "catalog_scratch", is_memory: 1 },
      { database_name: "shop", is_memory: 0 },
    ]);
    const pks = await internal.execute(
      `select name from catalog_columns
      where database_name = 'shop' and table_name = 'order_items' and is_pk order by cid`,
    );
    assert.deepEqual(pks.rows.map((r) => r[0]), ["order_id", "product_id"]);
    const fks = await internal.execute(
      `select "table", "from", "to" from catalog_foreign_keys
      where database_name = 'shop' and table_name = 'products'`,
    );
    assert.deepEqual(fks.dicts(), [{ table: "categories", from: "category_id", to: "id" }]);

    await shop.execute_write("create index products_price on products(price)");
    await refreshCatalog(internal, [shop]);
    const indexes = await internal.execute(
      "select name from catalog_indexes where database_name = 'shop' and table_name = 'products'",
    );
    assert.ok(indexes.rows.some((r) => r[0] === "products_price"));
    const remaining = await internal.execute("select distinct database_name from catalog_tables");
    assert.deepEqual(remaining.rows.map((r) => r[0]), ["shop"]);
  } finally {
    for (const db of [internal, shop, scratch]) db.close();
    host.close();
    cleanup();
  }
});

Deno.test("--internal <path> keeps the internal database in a file", async () => {
  const { dir, cleanup } = tempDir();
  const host = testHost();
  const { db: internal, ready } = openInternalDatabase(host, `${dir}/internal.db`);
  await ready;
  try {
    await internal.execute_write("create table myplugin_state (k text)");
    assert.equal(internal.path, `${dir}/internal.db`);
    assert.equal(internal.is_memory, false);
    assert.equal(await internal.table_exists("catalog_tables"), true);
  } finally {
    internal.close();
    host.close();
    cleanup();
  }
});
