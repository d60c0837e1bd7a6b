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
    m[1].replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ")
      .replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code))).replace(/\s+/g, " ")
      .trim()
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

Deno.test("a canned query's heading is its title, or the database and the query's name", async () => {
  await using svc = referenceService({
    metadata: {
      databases: {
        fixtures: {
          description: "Test tables description",
          queries: {
            magic_parameters: "select :_header_user_agent as user_agent",
            neighborhood_search: {
              sql:
                "select _neighborhood from facetable where _neighborhood like '%' || :text || '%'",
              title: "Search neighborhoods",
            },
          },
        },
      },
    },
  });
  const h1 = (html: string) => html.match(/<h1>([^<]*)/)?.[1].trim();
  const untitled = await svc.client.get("/fixtures/magic_parameters");
  assert.equal(untitled.status, 200);
  assert.equal(h1(untitled.text), "fixtures: magic_parameters");
  const titled = (await svc.client.get("/fixtures/neighborhood_search?text=town")).text;
  assert.equal(h1(titled), "Search neighborhoods");
  // Deliberate difference: the <title> names the query instead of printing its SQL.
  assert.equal(title(untitled.text), "magic_parameters");
  assert.equal(title(titled), "Search neighborhoods");
  // The custom SQL page is the database's: its heading and its description.
  const query = (await svc.client.get("/fixtures/-/query?sql=select+*+from+simple_primary_key"))
    .text;
  assert.equal(h1(query), "fixtures");
  assert.equal(title(query), "fixtures: select * from simple_primary_key");
  const long = `select ${"content, ".repeat(10)}pk from simple_primary_key`;
  const longTitle = title((await svc.client.get(`/fixtures?sql=${encodeURIComponent(long)}`)).text);
  assert.equal(longTitle, `fixtures: ${long.slice(0, 60)}...`);
  assert.match(query, /Test tables description/);
});

Deno.test("the custom SQL page's heading is the database's title when it has one", async () => {
  await using svc = referenceService({
    metadata: { title: "Instance", databases: { fixtures: { title: "Fixture tables" } } },
  });
  const query = (await svc.client.get("/fixtures/-/query?sql=select+1")).text;
  assert.match(query, /<h1>Fixture tables<\/h1>/);
  // An instance title is not the database's: the heading falls back to the database's name.
  await using plain = referenceService({
    metadata: { title: "Instance", databases: { fixtures: { queries: { one: "select 1" } } } },
  });
  const untitled = (await plain.client.get("/fixtures/-/query?sql=select+1")).text;
  assert.match(untitled, /<h1>fixtures<\/h1>/);
  const canned = (await plain.client.get("/fixtures/one")).text;
  assert.match(canned, /<h1>fixtures: one<\/h1>/);
});
