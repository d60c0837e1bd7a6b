import assert from "node:assert/strict";
import {
  applyLabels,
  columnsToExpand,
  csvLabelHeadings,
  csvLabelRow,
  expandableColumns,
  labelLookupSql,
  lookupLabels,
} from "../../src/table/labels.ts";
import { example, openShop, runArrays, runTable } from "./_shop.ts";

const FK = { column: "category_id", other_table: "categories", other_column: "id" };

Deno.test("_labels=on expands foreign keys as in example 19", async () => {
  const db = openShop();
  const ex = example("19-labels.json");
  const page = await runTable(db, "products", "_labels=on&_size=3");
  const expandable = expandableColumns([FK], () => "name");
  const expand = columnsToExpand(new URLSearchParams("_labels=on"), expandable, [
    "id",
    "category_id",
  ]);
  assert.deepEqual(expand, ["category_id"]);
  const labels = await lookupLabels(
    (sql, params) => Promise.resolve(runArrays(db, sql, params)),
    FK,
    "name",
    page.rows.map((row) => row.category_id),
  );
  const rows = applyLabels(page.rows, new Map([["category_id", labels]]));
  assert.deepEqual(rows, (ex.body as { rows: unknown[] }).rows);
});

Deno.test("which columns expand", () => {
  const expandable = expandableColumns([FK, { ...FK, column: "other" }], () => null);
  assert.deepEqual(expandable[1], [{ ...FK, column: "other" }, null]);
  const cols = ["category_id", "other"];
  const pick = (query: string, html = false) =>
    columnsToExpand(new URLSearchParams(query), expandable, cols, html);
  assert.deepEqual(pick(""), []);
  assert.deepEqual(pick("", true), cols);
  assert.deepEqual(pick("_labels=off", true), []);
  assert.deepEqual(pick("_label=other"), ["other"]);
  assert.deepEqual(columnsToExpand(new URLSearchParams("_labels=1"), expandable, ["other"]), [
    "other",
  ]);
});

Deno.test("label lookup SQL and labels without a label column", async () => {
  assert.deepEqual(labelLookupSql(FK, "name", [1, 1, 2, null]), {
    sql: "select id, name from categories where id in (?, ?)",
    params: [1, 2],
  });
  const labels = await lookupLabels(() => Promise.reject(new Error("unused")), FK, null, [3]);
  assert.deepEqual([...labels], [[3, "3"]]);
});

Deno.test("CSV gets a <col>_label column after each expanded column", () => {
  assert.deepEqual(csvLabelHeadings(["id", "category_id"], ["category_id"]), [
    "id",
    "category_id",
    "category_id_label",
  ]);
  assert.deepEqual(
    csvLabelRow([1, { value: 2, label: "Garden" }], ["id", "category_id"], ["category_id"]),
    [1, 2, "Garden"],
  );
  assert.deepEqual(csvLabelRow([3, null], ["id", "category_id"], ["category_id"]), [3, "", ""]);
});
