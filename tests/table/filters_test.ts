import assert from "node:assert/strict";
import {
  FILTER_OPERATORS,
  Filters,
  filtersFromArgs,
  isFilterArgument,
  joinHumanDescription,
  parseFilterKey,
} from "../../src/table/filters.ts";
import { example, openShop, requestOf, runTable } from "./_shop.ts";

const records = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/examples/26-filters.json", import.meta.url)),
) as { request: string; body: { rows: unknown[]; human_description_en: string } }[];

Deno.test("every filter operator matches examples/26-filters.json rows and description", async () => {
  assert.equal(records.length, 22);
  const db = openShop();
  for (const record of records) {
    const { args } = requestOf({ ...record, status: 200, headers: {} });
    const result = await runTable(db, "products", args.toString());
    assert.deepEqual(result.rows, record.body.rows, record.request);
    assert.equal(result.description, record.body.human_description_en, record.request);
  }
});

Deno.test("filter SQL uses double-quoted columns and :pN params", () => {
  const filters = new Filters([["price__gt", "15"], ["name__contains", "er"]]);
  const { where_clauses, params } = filters.build_where_clauses("products");
  // Pairs are sorted: name before price.
  assert.deepEqual(where_clauses, ['"name" like :p0', '"price" > :p1']);
  assert.deepEqual(params, { p0: "%er%", p1: 15 });
});

Deno.test("numeric operators convert only all-digit values", () => {
  const { params } = new Filters([["price__gte", "15.75"], ["id__lt", "7"]])
    .build_where_clauses("products");
  assert.deepEqual(params, { p0: 7, p1: "15.75" });
});

Deno.test("in accepts JSON lists and numbers params consecutively", () => {
  const { where_clauses, params } = new Filters([
    ["id__in", '["a,b", 2]'],
    ["name", "x"],
  ]).build_where_clauses("t");
  assert.deepEqual(where_clauses, ["id in (:p0, :p1)", '"name" = :p2']);
  assert.deepEqual(params, { p0: "a,b", p1: 2, p2: "x" });
});

Deno.test("array filters reference the table and column with brackets where needed", () => {
  const { where_clauses } = new Filters([["my tags__arraycontains", "x"]])
    .build_where_clauses("order");
  assert.deepEqual(where_clauses, [":p0 in (select value from json_each([order].[my tags]))"]);
});

Deno.test("underscore columns filter with __exact; control args are not filters", () => {
  assert.equal(isFilterArgument("_size"), false);
  assert.equal(isFilterArgument("_flag__exact"), true);
  assert.equal(isFilterArgument("state"), true);
  const args = new URLSearchParams("_size=2&_flag__exact=1&state=CA&state=NY&x__nope=1");
  const filters = filtersFromArgs(args);
  assert.deepEqual(filters.build_where_clauses("t").where_clauses, [
    '"_flag" = :p0',
    '"state" = :p1',
    '"state" = :p2',
  ]);
  assert.equal(
    filters.human_description_en(),
    'where _flag = 1, state = "CA" and state = "NY"',
  );
});

Deno.test("keys split on the last __ and unknown ops are ignored", () => {
  assert.deepEqual(parseFilterKey("a__b__gt"), { column: "a__b", lookup: "gt" });
  assert.deepEqual(parseFilterKey("plain"), { column: "plain", lookup: "exact" });
  assert.equal(new Filters([["a__bogus", "1"]]).has_selections(), false);
});

Deno.test("descriptions join with commas and a final and", () => {
  assert.equal(joinHumanDescription([]), "");
  assert.equal(joinHumanDescription(["a"]), "where a");
  assert.equal(joinHumanDescription(["a", "b", "c"]), "where a, b and c");
  assert.equal(FILTER_OPERATORS.length, 22);
});

Deno.test("example 09 describes a bare column filter", async () => {
  const ex = example("09-extras.json");
  const result = await runTable(openShop(), "products", requestOf(ex).args.toString());
  const body = ex.body as { human_description_en: string; rows: unknown[] };
  assert.equal(result.description, body.human_description_en);
  assert.deepEqual(result.rows, body.rows);
});
