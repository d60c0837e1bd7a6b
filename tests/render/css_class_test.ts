import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { bodyClass, cssClass } from "../../src/render/css_class.ts";

const md5 = (s: string) => createHash("md5").update(s).digest("hex").slice(0, 6);

Deno.test("cssClass() keeps valid CSS identifiers as they are", () => {
  for (const name of ["valid-name", "facetable", "Table_2", "a"]) {
    assert.equal(cssClass(name), name);
  }
});

Deno.test("cssClass() strips invalid characters and appends an md5 suffix", () => {
  assert.equal(
    cssClass("table/with/slashes.csv"),
    `tablewithslashescsv-${md5("table/with/slashes.csv")}`,
  );
  assert.equal(cssClass("_private"), `private-${md5("_private")}`);
  assert.equal(cssClass("-leading"), `leading-${md5("-leading")}`);
  assert.equal(cssClass("2024 sales"), `2024-sales-${md5("2024 sales")}`);
  assert.equal(cssClass("Ünïcode"), `ncode-${md5("Ünïcode")}`);
});

Deno.test("cssClass() falls back to the digest alone when nothing is left", () => {
  assert.equal(cssClass("🙂"), md5("🙂"));
  assert.equal(cssClass("___"), md5("___"));
  assert.equal(cssClass(""), md5(""));
  assert.equal(md5("x").length, 6);
});

Deno.test("bodyClass() gives the SPEC classes per page", () => {
  assert.equal(bodyClass("index"), "index");
  assert.equal(bodyClass("database", { database: "shop" }), "db db-shop");
  assert.equal(bodyClass("query", { database: "shop" }), "query db-shop");
  assert.equal(
    bodyClass("canned_query", { database: "shop", query: "by_category" }),
    "query db-shop query-by_category",
  );
  assert.equal(
    bodyClass("table", { database: "shop", table: "products" }),
    "table db-shop table-products",
  );
  assert.equal(
    bodyClass("row", { database: "shop", table: "a b" }),
    `row db-shop table-a-b-${md5("a b")}`,
  );
});
