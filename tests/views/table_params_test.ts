/**
 * Issue 37 items 12–13: a table page's query string is read once (`src/table/table_request.ts`)
 * and every argument is decided there: someone else's argument is neither a filter nor an error,
 * an unknown operator on a real column and a malformed `_next` or `_sort` are 400s naming it.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

Deno.test("an argument that names no column and no option is no filter and no error", async () => {
  await using svc = referenceService();
  const all = (await svc.client.get("/fixtures/facetable.json?_size=max")).json().rows.length;
  for (const extra of ["q=hello", "utm_source=newsletter", "nocolumn__gt=1"]) {
    const json = await svc.client.get(`/fixtures/facetable.json?_size=max&${extra}`);
    assert.equal(json.status, 200, extra);
    assert.equal(json.json().rows.length, all, extra);
    const html = await svc.client.get(`/fixtures/facetable?${extra}`);
    assert.equal(html.status, 200, extra);
    // Not described as a filter of the page either ("15 rows where state = "CA"").
    assert.match(html.text, /\d+ rows/, extra);
    assert.doesNotMatch(html.text, /rows\s+where/, extra);
  }
});

Deno.test("an unknown operator on a real column is a 400 naming it and the operators", async () => {
  await using svc = referenceService();
  const json = await svc.client.get("/fixtures/facetable.json?state__bogus=CA");
  assert.equal(json.status, 400);
  assert.match(
    json.json().error,
    /^Invalid filter state__bogus: unknown operator "bogus" \(use one of exact, not, contains,/,
  );
  const html = await svc.client.get("/fixtures/facetable?state__bogus=CA");
  assert.equal(html.status, 400);
  assert.match(html.text, /Invalid filter state__bogus: unknown operator &quot;bogus&quot;/);
});

Deno.test("a malformed _next and _sort on a missing column are 400s naming them", async () => {
  await using svc = referenceService();
  const next = await svc.client.get("/fixtures/compound_primary_key.json?_next=a");
  assert.equal(next.status, 400);
  assert.equal(next.json().error, "Invalid _next token");
  const offset = await svc.client.get("/fixtures/simple_view.json?_next=nope");
  assert.equal(offset.status, 400);
  assert.equal(offset.json().error, "_next must be an integer offset");
  // The JSON body words it as the reference does; the page also lists the choices.
  const sort = await svc.client.get("/fixtures/facetable.json?_sort=nope");
  assert.equal(sort.status, 400);
  assert.equal(sort.json().error, "Cannot sort table by nope");
  const page = await svc.client.get("/fixtures/facetable?_sort_desc=nope");
  assert.equal(page.status, 400);
  assert.match(page.text, /Cannot sort table by nope/);
  assert.match(
    page.text,
    /_sort and _sort_desc take one of: pk, created, planet_int, on_earth, state, _city_id/,
  );
  const nextPage = await svc.client.get("/fixtures/compound_primary_key?_next=a");
  assert.equal(nextPage.status, 400);
  assert.match(
    nextPage.text,
    /_next takes the token of a page&#39;s next_url|_next takes the token of a page's next_url/,
  );
});
