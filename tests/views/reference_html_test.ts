/**
 * Issue 16 class 7: HTML table, query and error pages as the reference shows them, on its fixture
 * shapes — the current (also default) sort in the header, the `Link` column of rowid tables, the
 * count and description in `<title>`, the database as the query page's heading, "Forbidden".
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

const title = (html: string) => html.match(/<title>([^<]*)<\/title>/)?.[1];
const headings = (html: string) =>
  [...html.matchAll(/<th [^>]*>([\s\S]*?)<\/th>/g)].map((m) =>
    m[1].replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ").replace(/\s+/g, " ").trim()
  );

Deno.test("the title carries the count and the human description", async () => {
  await using svc = referenceService();
  const ca = (await svc.client.get("/fixtures/facetable?state=CA")).text;
  assert.equal(title(ca), "fixtures: facetable: 10 rows where state = &quot;CA&quot;");
  const one = (await svc.client.get("/fixtures/facetable?state=MC")).text;
  assert.equal(title(one), "fixtures: facetable: 1 row where state = &quot;MC&quot;");
  const all = (await svc.client.get("/fixtures/no_primary_key")).text;
  assert.equal(title(all), "fixtures: no_primary_key: 2 rows");
});

Deno.test("the header shows the sort, the default one included, with its arrow", async () => {
  await using svc = referenceService();
  const byPk = (await svc.client.get("/fixtures/facetable")).text;
  assert.equal(headings(byPk)[0], "pk ▲ (sorted ascending)");
  // Its heading toggles to descending; other headings sort by themselves alone.
  assert.match(byPk, /href="\/fixtures\/facetable\?_sort_desc=pk"/);
  assert.match(byPk, /href="\/fixtures\/facetable\?_sort=state"/);
  const byState = (await svc.client.get("/fixtures/facetable?_sort_desc=state")).text;
  assert.deepEqual(headings(byState).slice(0, 5), [
    "pk",
    "created",
    "planet_int",
    "on_earth",
    "state ▼ (sorted descending)",
  ]);
  const rowid = (await svc.client.get("/fixtures/no_primary_key")).text;
  assert.equal(headings(rowid)[1], "rowid ▲ (sorted ascending)");
  // A view has no default key order to show.
  const view = (await svc.client.get("/fixtures/simple_view")).text;
  assert.deepEqual(headings(view), ["content", "upper_content"]);
});

Deno.test("rowid tables lead with a Link column; the rowid column is plain", async () => {
  await using svc = referenceService();
  const html = (await svc.client.get("/fixtures/no_primary_key")).text;
  assert.deepEqual(headings(html), [
    "Link",
    "rowid ▲ (sorted ascending)",
    "content",
    "a",
    "b",
    "c",
  ]);
  const firstRow = html.match(/<tbody[^>]*>\s*<tr[^>]*>([\s\S]*?)<\/tr>/)![1];
  assert.match(
    firstRow,
    /<td class="col-Link[^"]*"><a href="\/fixtures\/no_primary_key\/1">1<\/a><\/td>/,
  );
  assert.match(firstRow, /<td class="col-rowid type-int">1<\/td>/);
});

Deno.test("the query page's heading is the database; a 403 page is titled Forbidden", async () => {
  await using svc = referenceService({
    metadata: { databases: { fixtures: { tables: { binary_data: { allow: false } } } } },
  });
  const query = (await svc.client.get("/fixtures/-/query?sql=select+1")).text;
  assert.match(query, /<h1>fixtures<\/h1>/);
  const forbidden = await svc.client.get("/fixtures/binary_data");
  assert.equal(forbidden.status, 403);
  assert.equal(title(forbidden.text), "Forbidden");
  assert.match(forbidden.text, /<h1>Forbidden<\/h1>/);
  assert.match(forbidden.text, /<body class="error error-403">/);
});
