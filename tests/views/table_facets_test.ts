/** Configured facets (metadata `facets:`) together with `_facet*` arguments of the request. */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";

const CONFIGURED = {
  ...SHOP_METADATA,
  databases: {
    shop: {
      ...SHOP_METADATA.databases.shop,
      tables: { products: { facets: ["category_id", { array: "tags" }] } },
    },
  },
};

type Facet = { name: string; type: string; hideable: boolean; toggle_url: string };

Deno.test("a requested facet that is also configured appears once, as the configured one", async () => {
  await using svc = shopService({ metadata: CONFIGURED });
  const response = await svc.client.get(
    "/shop/products.json?_facet=category_id&_facet=price&_facet_array=tags&_facet=category_id",
  );
  assert.equal(response.status, 200);
  const results = response.json().facet_results.results as Record<string, Facet>;
  assert.deepEqual(Object.keys(results), ["category_id", "price", "tags"]);
  assert.deepEqual(
    Object.values(results).map((f) => [f.name, f.type, f.hideable]),
    [["category_id", "column", false], ["price", "column", true], ["tags", "array", false]],
  );
  // Removing `_facet=price` keeps the other arguments; a configured facet's toggle_url only
  // drops the redundant argument (it cannot be removed through the URL).
  assert.equal(
    results.price.toggle_url,
    "/shop/products.json?_facet=category_id&_facet_array=tags&_facet=category_id",
  );
  assert.equal(
    results.category_id.toggle_url,
    "/shop/products.json?_facet=price&_facet_array=tags",
  );
});

Deno.test("same-name facets of different types still become name_2", async () => {
  await using svc = shopService({ metadata: CONFIGURED });
  const body = (await svc.client.get(
    "/shop/products.json?_facet=added&_facet_date=added&_facet_date=added",
  )).json();
  const results = body.facet_results.results as Record<string, Facet>;
  assert.deepEqual(Object.keys(results), ["category_id", "added", "added_2", "tags"]);
  assert.deepEqual([results.added.type, results.added_2.type], ["column", "date"]);
});

Deno.test("HTML: each facet once; only facets from the request get a remove link", async () => {
  await using svc = shopService({ metadata: CONFIGURED });
  const html = (await svc.client.get("/shop/products?_facet=category_id&_facet=price")).text;
  const sections = [...html.matchAll(/<section class="facet" data-column="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.deepEqual(sections.toSorted(), ["category_id", "price", "tags"]);
  const removable = [...html.matchAll(/aria-label="Remove facet ([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(removable, ["price"]);
  assert.match(html, /href="\/shop\/products\?_facet=category_id" class="facet-remove"/);
  // Configured facets are not suggested again.
  const suggested = html.match(/<p class="suggested-facets">[\s\S]*?<\/p>/)?.[0] ?? "";
  assert.doesNotMatch(suggested, />category_id</);
});

Deno.test("a configured facet on a column the table lacks is left out; the page and the other facets stay", async () => {
  const metadata = structuredClone(CONFIGURED);
  metadata.databases.shop.tables.products.facets.unshift("colour");
  await using svc = shopService({ metadata });
  for (const path of ["/shop/products", "/shop/products.json?_extra=facet_results"]) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 200, `${path}: ${response.text.slice(0, 200)}`);
  }
  const results = (await svc.client.get("/shop/products.json?_extra=facet_results")).json()
    .facet_results.results as Record<string, Facet>;
  assert.deepEqual(Object.keys(results), ["category_id", "tags"]);
});
