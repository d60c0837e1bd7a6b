import assert from "node:assert/strict";
import {
  parseSort,
  sortableColumns,
  sortArgs,
  sortArgsAdded,
  sortArgsAlone,
  sortDescription,
} from "../../src/table/sort.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import { example, SHOP_TABLES, tableRequest } from "./_shop.ts";

const sortable = ["id", "name", "price"];
const parse = (query: string, config = {}) =>
  parseSort(new URLSearchParams(query), { sortable, config });

Deno.test("sort errors use the exact messages", () => {
  assert.throws(() => parse("_sort=name&_sort_desc=name"), {
    message: "Cannot use _sort and _sort_desc at the same time",
    status: 400,
  });
  assert.throws(() => parse("", { sort: "price", sort_desc: "price" }), { status: 400 });
  const ex = example("44-error-400-sort.json");
  assert.throws(() => parse("_sort=nope"), { message: (ex.body as { error: string }).error });
  assert.throws(() => parse("_sort_desc=id&_sort_desc=nope"), {
    message: "Cannot sort table by nope",
  });
});

Deno.test("repeated _sort keeps request order; config applies only without request sort", () => {
  assert.deepEqual(parse("_sort=price&_sort=name").items.map((i) => i.column), ["price", "name"]);
  assert.deepEqual(parse("", { sort_desc: "price" }).sort_desc, ["price"]);
  assert.deepEqual(parse("_sort=name", { sort_desc: "price" }).sort, ["name"]);
  assert.equal(sortDescription(parse("_sort_desc=price")), "sorted by price descending");
  assert.equal(sortDescription(parse("_sort=price&_sort=name")), "sorted by price, name");
  assert.equal(sortDescription(parse("")), "");
});

Deno.test("mixed directions keep query-string order and say each direction", () => {
  const mixed = parse("_sort_desc=price&_sort=name&_sort=id");
  assert.deepEqual(mixed.items.map((i) => [i.column, i.desc]), [
    ["price", true],
    ["name", false],
    ["id", false],
  ]);
  assert.deepEqual(mixed.sort, ["name", "id"]);
  assert.deepEqual(mixed.sort_desc, ["price"]);
  assert.deepEqual(sortArgs(mixed), [["_sort_desc", "price"], ["_sort", "name"], ["_sort", "id"]]);
  assert.equal(
    sortDescription(mixed),
    "sorted by price descending, name ascending, id ascending",
  );
  assert.equal(
    sortDescription(parse("_sort_desc=price&_sort_desc=name")),
    "sorted by price, name descending",
  );
  // Config lists have no relative order: ascending keys first.
  assert.deepEqual(
    parse("", { sort_desc: "price", sort: "name" }).items.map((i) => i.column),
    ["name", "price"],
  );
  const built = buildTableQuery({
    table: SHOP_TABLES.products,
    request: tableRequest("_sort=category_id&_sort_desc=price"),
  });
  assert.equal(built.order_by, "category_id, price desc, id");
  assert.equal(built.human_description_en, "sorted by category_id ascending, price descending");
});

Deno.test("sortable columns: config, or all columns plus rowid for rowid tables", () => {
  assert.deepEqual(sortableColumns({ columns: ["a"], useRowid: true }), ["a", "rowid"]);
  assert.deepEqual(
    sortableColumns({ columns: ["a", "b"], useRowid: false }, { sortable_columns: ["b"] }),
    ["b"],
  );
  const log = buildTableQuery({
    table: SHOP_TABLES.log,
    request: tableRequest("_sort_desc=rowid"),
  });
  assert.equal(log.order_by, "rowid desc");
  assert.throws(
    () =>
      buildTableQuery({
        table: SHOP_TABLES.products,
        request: tableRequest("_sort=name"),
        config: { sortable_columns: ["price"] },
      }),
    { message: "Cannot sort table by name" },
  );
});

Deno.test("sorted order adds the primary keys as tie-breakers", () => {
  const built = buildTableQuery({
    table: SHOP_TABLES.order_items,
    request: tableRequest("_sort=quantity"),
  });
  assert.equal(built.order_by, "quantity, order_id, product_id");
  const view = buildTableQuery({
    table: SHOP_TABLES.cheap_products,
    request: tableRequest("_sort_desc=price"),
  });
  assert.equal(view.order_by, "price desc");
});

Deno.test("a heading sorts by its column alone; adding a key appends or flips it", () => {
  const order = parseSort(new URLSearchParams("_sort=category_id&_sort_desc=price"), {
    sortable: ["name", "category_id", "price"],
  });
  assert.deepEqual(sortArgsAlone(order, "name"), [["_sort", "name"]]);
  assert.deepEqual(sortArgsAlone(order, "category_id"), [["_sort_desc", "category_id"]]);
  assert.deepEqual(sortArgsAlone(order, "price"), [["_sort", "price"]]);
  assert.deepEqual(sortArgsAdded(order, "name"), [
    ["_sort", "category_id"],
    ["_sort_desc", "price"],
    ["_sort", "name"],
  ]);
  assert.deepEqual(sortArgsAdded(order, "price"), [["_sort", "category_id"], ["_sort", "price"]]);
});
