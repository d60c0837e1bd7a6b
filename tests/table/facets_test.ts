import assert from "node:assert/strict";
import {
  ArrayFacet,
  checkFacetArgsAllowed,
  collectFacetResults,
  collectSuggestedFacets,
  ColumnFacet,
  DateFacet,
  DEFAULT_FACET_CLASSES,
  type FacetOptions,
  shouldSuggestFacets,
} from "../../src/table/facets.ts";
import { lookupLabels } from "../../src/table/labels.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import {
  example,
  facetDatabase,
  openShop,
  requestOf,
  runArrays,
  SHOP_TABLES,
  tableRequest,
} from "./_shop.ts";

const CATEGORY_FK = { column: "category_id", other_table: "categories", other_column: "id" };

function facetOptions(request: string, extra: Partial<FacetOptions> = {}) {
  const db = openShop();
  const { path, args } = requestOf({ request, status: 200, headers: {}, body: null });
  const query = buildTableQuery({ table: SHOP_TABLES.products, request: tableRequest(args) });
  const { database, calls } = facetDatabase(db, {});
  const options: FacetOptions = {
    database,
    table: "products",
    sql: query.sql_no_order_no_limit,
    params: query.from_params,
    args,
    path,
    absoluteUrl: (p) => `http://localhost${p}`,
    expandLabels: (column, values) =>
      column === "category_id"
        ? lookupLabels(
          (sql, params) => Promise.resolve(runArrays(db, sql, params)),
          CATEGORY_FK,
          "name",
          values,
        )
        : Promise.resolve(new Map()),
    ...extra,
  };
  return { options, calls };
}

for (const file of ["20-facet.json", "21-facet-array.json", "22-facet-date.json"]) {
  Deno.test(`facet results match ${file}`, async () => {
    const ex = example(file);
    const { options } = facetOptions(ex.request);
    const facets = DEFAULT_FACET_CLASSES.map((FacetClass) => new FacetClass(options));
    const body = ex.body as { facet_results: unknown };
    assert.deepEqual(await collectFacetResults(facets), body.facet_results);
  });
}

Deno.test("suggested facets match example 09", async () => {
  const ex = example("09-extras.json");
  const { options } = facetOptions(ex.request);
  const facets = DEFAULT_FACET_CLASSES.map((FacetClass) => new FacetClass(options));
  const body = ex.body as { suggested_facets: unknown; facet_results: unknown };
  assert.deepEqual(await collectSuggestedFacets(facets), body.suggested_facets);
  assert.deepEqual(await collectFacetResults(facets), body.facet_results);
});

Deno.test("a selected value toggles off and keeps __exact for underscore columns", async () => {
  const { options } = facetOptions("GET /shop/products.json?_facet=category_id&category_id=2");
  const [[facet]] = await new ColumnFacet(options).facet_results();
  assert.equal(facet.toggle_url, "/shop/products.json?category_id=2");
  assert.deepEqual(facet.results.map((r) => [r.value, r.selected, r.toggle_url]), [
    [2, true, "http://localhost/shop/products.json?_facet=category_id"],
  ]);
  const db = openShop();
  db.exec("create table t (_kind text); insert into t values ('a'), ('a'), ('b');");
  const underscore = new ColumnFacet({
    ...options,
    database: facetDatabase(db).database,
    table: "t",
    sql: "select * from t",
    params: {},
    args: new URLSearchParams("_facet=_kind"),
    path: "/db/t",
    expandLabels: undefined,
  });
  const [[kind]] = await underscore.facet_results();
  assert.equal(kind.results[0].toggle_url, "http://localhost/db/t?_facet=_kind&_kind__exact=a");
});

Deno.test("duplicate facet names get _2, sizes cap and truncate", async () => {
  const { options, calls } = facetOptions(
    "GET /shop/products.json?_facet=added&_facet_date=added&_facet_size=2",
    { settings: { max_returned_rows: 1000, default_facet_size: 30, facet_time_limit_ms: 123 } },
  );
  const results = await collectFacetResults([new ColumnFacet(options), new DateFacet(options)]);
  assert.deepEqual(Object.keys(results.results), ["added", "added_2"]);
  assert.equal(results.results.added_2.type, "date");
  assert.equal(results.results.added.results.length, 2);
  assert.equal(results.results.added.truncated, true);
  assert.ok(calls.every((c) => c.custom_time_limit === 123));
  const capped = new ColumnFacet({
    ...options,
    args: new URLSearchParams("_facet_size=max"),
    settings: { max_returned_rows: 7 },
  });
  assert.equal(capped.get_facet_size(), 7);
  const configured = new ColumnFacet({
    ...options,
    args: new URLSearchParams(),
    config: { facet_size: 4 },
  });
  assert.equal(configured.get_facet_size(), 4);
});

Deno.test("metadata facets are not hideable; timeouts are reported by name", async () => {
  const { options } = facetOptions("GET /shop/products.json");
  const [[fromConfig]] = await new ColumnFacet({ ...options, config: { facets: ["category_id"] } })
    .facet_results();
  assert.equal(fromConfig.hideable, false);
  const slow = facetDatabase(openShop(), { interrupt: true }).database;
  const [results, timedOut] = await new ArrayFacet({
    ...options,
    database: slow,
    args: new URLSearchParams("_facet_array=tags"),
  }).facet_results();
  assert.deepEqual(results, []);
  assert.deepEqual(timedOut, ["tags"]);
});

Deno.test("suggestions use the suggest time limit and skip enabled facets", async () => {
  const { options, calls } = facetOptions("GET /shop/products.json?_facet_array=tags", {
    settings: { facet_suggest_time_limit_ms: 7 },
  });
  const suggestions = await new ArrayFacet(options).suggest();
  assert.deepEqual(suggestions, []);
  assert.ok(calls.some((c) => c.custom_time_limit === 7));
});

Deno.test("facet permissions and when to suggest", () => {
  assert.throws(
    () => checkFacetArgsAllowed(new URLSearchParams("_facet=a"), false),
    { message: "_facet= is not allowed", status: 400 },
  );
  checkFacetArgsAllowed(new URLSearchParams("_facet=a"), true);
  const on = { suggest_facets: true, allow_facet: true };
  assert.equal(shouldSuggestFacets(new URLSearchParams(""), on), true);
  assert.equal(shouldSuggestFacets(new URLSearchParams("_next=2"), on), false);
  assert.equal(shouldSuggestFacets(new URLSearchParams("_nofacet=1"), on), false);
  assert.equal(
    shouldSuggestFacets(new URLSearchParams(""), { ...on, suggest_facets: false }),
    false,
  );
});

Deno.test("array facets are suggested for JSON-array columns only, by queries that never fail", async () => {
  const { Service } = await import("../../src/service.ts");
  const { createDatabase, withTempDir } = await import("../sqlite/helpers.ts");
  await withTempDir(async (dir) => {
    const path = `${dir}/tags.db`;
    createDatabase(
      path,
      `create table t (id integer primary key, tags text, mixed text, words text);
       insert into t values (1, '["a","b"]', '["x"]', 'oak'), (2, '["b"]', 'plain text', 'elm'),
         (3, '["c"]', '["y"]', 'ash');`,
    );
    await using svc = new Service({ immutables: [path] });
    const suggestedArrays = async () => {
      const response = await svc.client.get("/tags/t.json?_extra=suggested_facets");
      const body = response.json<{ suggested_facets: { name: string; type?: string }[] }>();
      return body.suggested_facets.filter((s) => s.type === "array").map((s) => s.name);
    };
    assert.deepEqual(await suggestedArrays(), ["tags"]);
    const misses = svc.queryCache()!.stats().misses;
    assert.deepEqual(await suggestedArrays(), ["tags"]);
    // Every query of the page was kept: none failed (a failed query is never cached, so a
    // column of text that is not JSON would cost a failing query on every page).
    assert.equal(svc.queryCache()!.stats().misses, misses);
  });
});

Deno.test("suggestions ask one query per facet kind, with the answers of a query per column", async () => {
  const { Service } = await import("../../src/service.ts");
  const { createDatabase, withTempDir } = await import("../sqlite/helpers.ts");
  await withTempDir(async (dir) => {
    const path = `${dir}/kinds.db`;
    // Collations, types that differ (text '1' and integer 1), empty strings, NULLs, JSON that is
    // no array or no JSON at all: what a probe per column answered, the merged probes must too.
    createDatabase(
      path,
      `create table t (id integer primary key, tags text, day text, colour text collate nocase,
         n integer, mixed, sparse text, bad text);
       insert into t values
         (1, '["a","b"]', '2020-01-01', 'Red', 1, '1', '', '[1]'),
         (2, '["b"]', 'not a date', 'red', 1, 1, '["x"]', '{"a":1}'),
         (3, '[]', null, 'Blue', 2, 1, null, '["y"]'),
         (4, '["c"]', '2020-01-02 10:00', 'blue', 2, '1', '["z"]', 'oops');`,
    );
    await using svc = new Service({ files: [path], settings: { trace_debug: true } });
    const response = await svc.client.get("/kinds/t.json?_extra=suggested_facets&_trace=1");
    const body = response.json<{
      suggested_facets: { name: string; type?: string }[];
      _trace: { traces: { sql?: string }[] };
    }>();
    assert.deepEqual(
      body.suggested_facets.map((s) => `${s.type ?? "column"}:${s.name}`),
      ["column:colour", "column:n", "column:mixed", "date:day", "array:tags", "array:sparse"],
    );
    // The first rows are read once per kind (and a sample of each column of arrays only), not
    // once per column and kind: 8 columns asked 25 queries before.
    const probes = body._trace.traces.filter((t) =>
      /limit (1000|100)\)/.test(t.sql ?? "") || /json_array_length/.test(t.sql ?? "")
    );
    assert.equal(probes.length, 5, probes.map((t) => t.sql).join("\n"));
  });
});
