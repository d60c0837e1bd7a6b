import assert from "node:assert/strict";
import { MultipleValues } from "../../src/db/errors.ts";
import { Results } from "../../src/db/results.ts";

Deno.test("rows answer by index and by column name", () => {
  const results = new Results([[1, "Ada"], [2, "Grace"]], ["id", "name"]);
  const row = results.rows[1];
  assert.equal(row[0], 2);
  assert.equal(row["name"], "Grace");
  assert.equal(row.id, 2);
  assert.ok(Array.isArray(row));
  assert.equal(JSON.stringify(row), '[2,"Grace"]');
  assert.deepEqual(Object.keys(row), ["0", "1"]);
  assert.deepEqual(row.toObject(), { id: 2, name: "Grace" });
  assert.deepEqual([...row], [2, "Grace"]);
});

Deno.test("results: length, first, iteration, dicts", () => {
  const results = new Results([[1], [2], [3]], ["n"], true);
  assert.equal(results.length, 3);
  assert.equal(results.truncated, true);
  assert.equal(results.first()?.["n"], 1);
  assert.deepEqual([...results].map((row) => row[0]), [1, 2, 3]);
  assert.deepEqual(results.dicts(), [{ n: 1 }, { n: 2 }, { n: 3 }]);
  assert.equal(new Results([], ["n"]).first(), null);
});

Deno.test("single_value needs exactly one row and one column", () => {
  assert.equal(new Results([[42]], ["answer"]).single_value(), 42);
  assert.throws(() => new Results([[1], [2]], ["n"]).single_value(), MultipleValues);
  assert.throws(() => new Results([[1, 2]], ["a", "b"]).single_value(), MultipleValues);
  assert.throws(() => new Results([], ["a"]).single_value(), MultipleValues);
});

Deno.test("duplicate and awkward column names keep the row an array", () => {
  const results = new Results([[1, 2, 3, 4, 5, 6]], ["a", "a", "length", "map", "values", "b"]);
  const row = results.rows[0];
  assert.equal(row["a"], 1);
  assert.equal(row["b"], 6);
  assert.equal(row.length, 6);
  // Array methods win over same-named columns: views call row.map() (a column "map" made the
  // JSON view with _labels=on fail with "row.map is not a function").
  assert.deepEqual(row.map((value) => value), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([...row.values()], [1, 2, 3, 4, 5, 6]);
  assert.equal(JSON.stringify(row), "[1,2,3,4,5,6]");
  assert.deepEqual(row.toObject(), { a: 1, length: 3, map: 4, values: 5, b: 6 });
});
