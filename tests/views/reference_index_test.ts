/**
 * Issue 16 class 9: the index JSON as the reference answers it — `?_sort=relationships` and a
 * `metadata` of describing keys only.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

type Summary = {
  tables_and_views_truncated: { name: string; num_relationships_for_sorting?: number }[];
};

const fixtures = (body: { databases: (Summary & { name: string })[] }) =>
  body.databases.find((d) => d.name === "fixtures")!;

const names = (body: { databases: (Summary & { name: string })[] }) =>
  fixtures(body).tables_and_views_truncated.map((t) => t.name);

Deno.test("?_sort=relationships puts tables with foreign keys first, then count, then name", async () => {
  await using svc = referenceService();
  const byCount = (await svc.client.get("/.json")).json();
  assert.deepEqual(names(byCount), [
    "facetable",
    "simple_primary_key",
    "facet_cities",
    "binary_data",
    "no_primary_key",
  ]);
  const byRelationships = (await svc.client.get("/.json?_sort=relationships")).json();
  // foreign_key_references has three foreign keys, simple_primary_key two pointing at it.
  assert.deepEqual(names(byRelationships), [
    "foreign_key_references",
    "simple_primary_key",
    "facetable",
    "facet_cities",
    "primary_key_multiple_columns",
  ]);
  const listed = fixtures(byRelationships).tables_and_views_truncated;
  assert.deepEqual(
    listed.map((t) => t.num_relationships_for_sorting),
    [3, 2, 1, 1, 1],
  );
});

Deno.test("the index's metadata carries the describing keys, not configuration", async () => {
  await using svc = referenceService({
    metadata: {
      title: "Fixtures",
      license: "Apache 2.0",
      about: "Tests",
      extra_css_urls: ["/static/app.css"],
      extra_js_urls: ["/static/app.js"],
      plugins: { "some-plugin": { key: "secret" } },
      allow_sql: { id: "root" },
      databases: { fixtures: { title: "F" } },
    },
  });
  const body = (await svc.client.get("/.json")).json();
  assert.deepEqual(body.metadata, { title: "Fixtures", license: "Apache 2.0", about: "Tests" });
  // The page still uses the configuration the metadata file carries.
  const html = (await svc.client.get("/")).text;
  assert.match(html, /\/static\/app\.css/);
});
