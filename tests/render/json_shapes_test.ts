import assert from "node:assert/strict";
import {
  keepInfinity,
  parseJsonColumns,
  parseShape,
  pkString,
  rowObjects,
  shapedRows,
} from "../../src/render/json_shapes.ts";
import { valueAsBoolean } from "../../src/util/value_as_boolean.ts";
import { example, openShop, runArrays } from "../table/_shop.ts";

const db = openShop();
const products = runArrays(db, "select * from products order by id limit 3");

Deno.test("shapes match examples 04-07", () => {
  const cases: [
    string,
    "arrays" | "array" | "object" | "arrayfirst",
    (body: unknown) => unknown,
  ][] = [
    ["04-shape-arrays.json", "arrays", (b) => (b as { rows: unknown }).rows],
    ["05-shape-array.json", "array", (b) => b],
    ["06-shape-object.json", "object", (b) => b],
    ["07-shape-arrayfirst.json", "arrayfirst", (b) => b],
  ];
  for (const [file, shape, pick] of cases) {
    const expected = pick(example(file).body);
    assert.deepEqual(shapedRows(shape, products.columns, products.rows, ["id"]), expected, file);
  }
});

Deno.test("_shape errors", () => {
  assert.equal(parseShape(new URLSearchParams("")), "objects");
  assert.equal(parseShape(new URLSearchParams("_shape=arrays")), "arrays");
  assert.throws(() => parseShape(new URLSearchParams("_shape=xyz")), {
    message: "Invalid _shape: xyz",
    status: 400,
  });
  assert.throws(() => shapedRows("object", ["a"], [[1]], null), {
    message: "_shape=object is only available on tables",
  });
  assert.throws(() => shapedRows("object", ["a"], [[1]], []), {
    message: "_shape=object not available for tables with no primary keys",
  });
});

Deno.test("compound keys are tilde-encoded and comma-joined", () => {
  const items = runArrays(db, "select * from order_items order by order_id, product_id limit 1");
  const keyed = shapedRows("object", items.columns, items.rows, ["order_id", "product_id"]);
  assert.deepEqual(Object.keys(keyed as object), ["A~2F1001,1"]);
  assert.equal(pkString({ a: { value: "x y", label: "" } }, ["a"]), "x+y");
});

Deno.test("_json parses named columns; _json_infinity=on keeps infinities", () => {
  const parsed = parseJsonColumns(products.columns, products.rows.slice(0, 1), ["tags", "name"]);
  assert.deepEqual(parsed[0][4], ["steel", "sharp"]);
  assert.equal(parsed[0][1], "Chef knife");
  assert.equal(keepInfinity(new URLSearchParams("_json_infinity=on")), true);
  assert.equal(keepInfinity(new URLSearchParams("")), false);
});

Deno.test("valueAsBoolean accepts on/off spellings only", () => {
  assert.equal(valueAsBoolean("ON"), true);
  assert.equal(valueAsBoolean("true"), true);
  assert.equal(valueAsBoolean("0"), false);
  assert.equal(valueAsBoolean("Off"), false);
  assert.equal(valueAsBoolean("maybe"), null);
  assert.equal(valueAsBoolean(null), null);
});

Deno.test("row objects keep the last value of a repeated column name, at its first position", () => {
  assert.deepEqual(rowObjects(["a", "b", "a"], [[1, 2, 3]]), [{ a: 3, b: 2 }]);
  assert.deepEqual(Object.keys(rowObjects(["a", "b", "a"], [[1, 2, 3]])[0]), ["a", "b"]);
});
