import assert from "node:assert/strict";
import {
  FilterArguments,
  mergeFilterArguments,
  throughFilterArguments,
  toFilterArguments,
  whereFilterArguments,
} from "../../src/table/filter_arguments.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import type { TableArgsError } from "../../src/table/errors.ts";
import { openShop, queryRows, SHOP_TABLES, tableRequest } from "./_shop.ts";

const build = (query: string, extra = {}) =>
  buildTableQuery({ table: SHOP_TABLES.products, request: tableRequest(query), ...extra });

Deno.test("_col and _nocol validate and pick columns", () => {
  assert.deepEqual(build("_col=price&_col=id&_col=price").columns, ["id", "price"]);
  assert.deepEqual(build("_nocol=tags").columns, [
    "id",
    "name",
    "category_id",
    "price",
    "added",
    "notes",
  ]);
  assert.throws(() => build("_col=nope&_col=bad"), {
    message: "_col=nope, bad - invalid columns",
    status: 400,
  });
  assert.throws(() => build("_nocol=id"), { message: "_nocol=id - invalid columns" });
  const facetBase = build("_col=name&price__gt=10").sql_no_order_no_limit;
  assert.equal(
    facetBase,
    'select id, name, category_id, price, tags, added, notes from products where "price" > :p0',
  );
});

Deno.test("hook filter arguments join the where clause and the description", () => {
  const built = build("name__startswith=T", {
    filter_arguments: [
      { where_clauses: ["price < :max"], params: { max: 8 }, human_descriptions: ["cheap"] },
    ],
  });
  assert.equal(
    built.sql,
    "select id, name, category_id, price, tags, added, notes from products " +
      'where "name" like :p0 and price < :max order by id limit 101',
  );
  assert.deepEqual(built.params, { p0: "T%", max: 8 });
  assert.equal(built.human_description_en, 'where cheap and name starts with "T"');
  const rows = queryRows(openShop(), built);
  assert.deepEqual(rows.map((r) => r.name), ["Trowel", "Tea towel"]);
});

Deno.test("_where needs execute-sql and offers remove links", () => {
  const args = new URLSearchParams("_where=price > 10&_size=2");
  assert.throws(() => whereFilterArguments(args, { allowed: false }), {
    message: "_where= is not allowed",
    status: 403,
  });
  const allowed = whereFilterArguments(args, { allowed: true, path: "/shop/products" });
  // In parentheses on lines of their own: combined with the other filters by `and`, always.
  assert.deepEqual(allowed.where_clauses, ["(\nprice > 10\n)"]);
  assert.deepEqual(allowed.extra_context.extra_wheres_for_ui, [
    { text: "price > 10", remove_url: "/shop/products?_size=2" },
  ]);
  assert.deepEqual(
    whereFilterArguments(new URLSearchParams(), { allowed: false }).where_clauses,
    [],
  );
});

Deno.test("_through selects rows linked by a many-to-many table", async () => {
  const args = new URLSearchParams(
    '_through={"table":"order_items","column":"order_id","value":"A/1002"}',
  );
  const through = await throughFilterArguments(args, "products", () => [
    { column: "order_id", other_table: "orders", other_column: "id" },
    { column: "product_id", other_table: "products", other_column: "id" },
  ]);
  const built = build(args.toString(), { filter_arguments: [through] });
  const rows = queryRows(openShop(), built);
  assert.deepEqual(rows.map((r) => r.id), [5, 6]);
  assert.equal(built.human_description_en, 'where order_items.order_id = "A/1002"');
  await assert.rejects(() => throughFilterArguments(args, "products", () => []), {
    message: "Invalid _through - could not find corresponding foreign key",
  });
});

Deno.test("FilterArguments from plain objects and merged", () => {
  const plain = toFilterArguments({ where_clauses: ["a = 1"] });
  assert.ok(plain instanceof FilterArguments);
  assert.deepEqual(plain.params, {});
  assert.deepEqual(plain.human_descriptions, []);
  const merged = mergeFilterArguments([
    plain,
    new FilterArguments(["b = :b"], { b: 2 }, ["b is 2"], { x: 1 }),
  ]);
  assert.deepEqual(merged.where_clauses, ["a = 1", "b = :b"]);
  assert.deepEqual(merged.extra_context, { x: 1 });
});

Deno.test("an argument naming no column is no filter, and blank args keep defaults", () => {
  // A plugin's `?q=`, a shared link's `?utm_source=`: someone else's, not an error.
  const built = build("q=x&utm_source=news&nocolumn__gt=1&_sort=&_size=");
  assert.equal(
    built.sql,
    "select id, name, category_id, price, tags, added, notes from products order by id limit 101",
  );
  assert.equal(built.human_description_en, "");
});

Deno.test("an unknown operator on a real column is a 400 naming it and the operators", () => {
  assert.throws(() => build("price__bogus=1"), (error: Error) => {
    assert.equal((error as TableArgsError).status, 400);
    assert.match(error.message, /^Invalid filter price__bogus: unknown operator "bogus"/);
    assert.match(error.message, /exact, not, contains/);
    return true;
  });
});

Deno.test("a column whose name holds __ is filtered on as a whole", () => {
  const table = { ...SHOP_TABLES.products, columns: [...SHOP_TABLES.products.columns, "a__b"] };
  const built = buildTableQuery({ table, request: tableRequest("a__b=1") });
  assert.match(built.sql, /where "a__b" = :p0/);
});
