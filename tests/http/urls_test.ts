import assert from "node:assert/strict";
import { PrefixedUrl, Urls } from "../../src/http/urls.ts";

const plain = new Urls(() => "/");
const prefixed = new Urls(() => "/prefix/");

Deno.test("builders without base_url", () => {
  assert.equal(String(plain.instance()), "/");
  assert.equal(String(plain.instance({ format: "json" })), "/.json");
  assert.equal(String(plain.logout()), "/-/logout");
  assert.equal(String(plain.static("app.css")), "/-/static/app.css");
  assert.equal(
    String(plain.static_plugins("my-plugin", "x.js")),
    "/-/static-plugins/my-plugin/x.js",
  );
  assert.equal(String(plain.database("fixtures")), "/fixtures");
  assert.equal(String(plain.database("fixtures", { format: "json" })), "/fixtures.json");
  assert.equal(String(plain.table("fixtures", "facetable")), "/fixtures/facetable");
  assert.equal(
    String(plain.query("fixtures", "neighborhood_search", { format: "csv" })),
    "/fixtures/neighborhood_search.csv",
  );
  assert.equal(
    String(plain.row("fixtures", "compound", "a,b", { format: "json" })),
    "/fixtures/compound/a,b.json",
  );
  assert.equal(String(plain.database_download("fixtures")), "/fixtures.db");
});

Deno.test("names are tilde-encoded", () => {
  assert.equal(String(plain.table("my db", "table/with.dots")), "/my+db/table~2Fwith~2Edots");
  assert.equal(
    String(plain.table("db", "table.with.dots", { format: "json" })),
    "/db/table~2Ewith~2Edots.json",
  );
});

Deno.test("base_url /prefix/ prefixes every builder", () => {
  assert.equal(String(prefixed.instance()), "/prefix/");
  assert.equal(String(prefixed.path("/foo/bar")), "/prefix/foo/bar");
  assert.equal(String(prefixed.path("foo/bar")), "/prefix/foo/bar");
  assert.equal(String(prefixed.static("app.css")), "/prefix/-/static/app.css");
  assert.equal(String(prefixed.table("db", "t", { format: "json" })), "/prefix/db/t.json");
  assert.equal(String(prefixed.logout()), "/prefix/-/logout");
});

Deno.test("results are PrefixedUrl and never double-prefixed", () => {
  const once = prefixed.path("/foo");
  assert.ok(once instanceof PrefixedUrl);
  assert.equal(String(prefixed.path(once)), "/prefix/foo");
  assert.equal(
    String(prefixed.path(prefixed.table("db", "t"), { format: "csv" })),
    "/prefix/db/t.csv",
  );
  assert.equal(`${once}?x=1`, "/prefix/foo?x=1");
});

Deno.test("format goes before the query string, or into _format when the name has a dot", () => {
  assert.equal(
    String(plain.database_query("db", "select 1", { format: "json" })),
    "/db.json?sql=select+1",
  );
  assert.equal(String(plain.path("/x/file.tar", { format: "json" })), "/x/file.tar?_format=json");
});

Deno.test("databaseRoute maps names to routes", () => {
  const urls = new Urls(() => "/", { databaseRoute: (name) => name === "data" ? "d" : name });
  assert.equal(String(urls.table("data", "t")), "/d/t");
});

Deno.test("base_url is read on every call", () => {
  let base = "/";
  const urls = new Urls(() => base);
  assert.equal(String(urls.instance()), "/");
  base = "/later/";
  assert.equal(String(urls.instance()), "/later/");
});
