import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  templateCandidates,
  templatesConsideredComment,
} from "../../src/render/template_lookup.ts";

const md5 = (s: string) => createHash("md5").update(s).digest("hex").slice(0, 6);

Deno.test("templateCandidates() follows the SPEC lookup table", () => {
  const names = { database: "shop", table: "products", query: "by_cat" };
  assert.deepEqual(templateCandidates("index"), ["index.html"]);
  assert.deepEqual(templateCandidates("database", names), ["database-shop.html", "database.html"]);
  assert.deepEqual(templateCandidates("query", names), ["query-shop.html", "query.html"]);
  assert.deepEqual(templateCandidates("canned_query", names), [
    "query-shop-by_cat.html",
    "query-shop.html",
    "query.html",
  ]);
  assert.deepEqual(templateCandidates("table", names), ["table-shop-products.html", "table.html"]);
  assert.deepEqual(templateCandidates("row", names), ["row-shop-products.html", "row.html"]);
  // The reference's order (its code and its `_extra=custom_table_templates`), not its docs'.
  assert.deepEqual(templateCandidates("table_rows", names), [
    "_table-shop-products.html",
    "_table-table-shop-products.html",
    "_table.html",
  ]);
  assert.deepEqual(templateCandidates("row_rows", names), [
    "_table-row-shop-products.html",
    "_table-shop-products.html",
    "_table.html",
  ]);
});

Deno.test("templateCandidates() sanitises names like body classes", () => {
  const table = "table/with/slashes.csv";
  assert.deepEqual(templateCandidates("table", { database: "fixtures", table }), [
    `table-fixtures-tablewithslashescsv-${md5(table)}.html`,
    "table.html",
  ]);
});

Deno.test("templatesConsideredComment() stars the selected template", () => {
  assert.equal(
    templatesConsideredComment(["table-shop-products.html", "table.html"], "table.html"),
    "<!-- Templates considered: table-shop-products.html, *table.html -->",
  );
});
