/**
 * Issue 16 class 1: URLs as the reference answers them — trailing slashes redirect, and every
 * name its fixtures use round-trips through tilde encoding.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";
import { tilde_encode } from "../../src/util/tilde.ts";

Deno.test("a trailing slash redirects (302) to the URL without it, query string kept", async () => {
  await using svc = referenceService();
  for (
    const [from, to] of [
      ["/fixtures/", "/fixtures"],
      ["/fixtures/facetable/", "/fixtures/facetable"],
      ["/fixtures/facetable//", "/fixtures/facetable"],
      ["/fixtures/facetable/?state=CA", "/fixtures/facetable?state=CA"],
      ["/fixtures/simple_primary_key/1/", "/fixtures/simple_primary_key/1"],
      ["/-/versions/", "/-/versions"],
    ]
  ) {
    const response = await svc.client.get(from);
    assert.equal(response.status, 302, from);
    assert.equal(response.headers.get("location"), to, from);
  }
  // Where the redirect leads answers, and `/` itself is the index, not a redirect.
  assert.equal((await svc.client.get("/fixtures/facetable")).status, 200);
  assert.equal((await svc.client.get("/")).status, 200);
});

Deno.test("a trailing-slash redirect never leaves the site and never answers a POST", async () => {
  await using svc = referenceService();
  const response = await svc.client.get("//evil.example/");
  if (response.status === 302) {
    assert.ok(!response.headers.get("location")!.startsWith("//"));
  }
  const post = await svc.client.post("/fixtures/facetable/", {});
  assert.notEqual(post.status, 302);
});

Deno.test("trailing slashes redirect under base_url too", async () => {
  await using svc = referenceService({ settings: { base_url: "/prefix/" } });
  const response = await svc.client.get("/prefix/fixtures/facetable/");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/prefix/fixtures/facetable");
});

Deno.test("every fixture name round-trips through tilde encoding in table and row URLs", async () => {
  await using svc = referenceService();
  const names = [
    "table/with/slashes.csv",
    "123_starts_with_digits",
    "table with spaces",
    "tábla-ünicode",
  ];
  for (const name of names) {
    const response = await svc.client.get(`/fixtures/${tilde_encode(name)}.json?_extra=table`);
    assert.equal(response.status, 200, name);
    assert.equal(response.json<{ table: string }>().table, name);
  }
  const csv = await svc.client.get("/fixtures/table~2Fwith~2Fslashes~2Ecsv.csv");
  assert.equal(csv.status, 200);
  assert.match(csv.text, /^pk,content\r?\n3,hey/);
  // Row keys are tilde-encoded too: compound key ("a/b", ".c-d").
  const row = await svc.client.get(
    `/fixtures/compound_primary_key/${tilde_encode("a/b")},${tilde_encode(".c-d")}.json`,
  );
  assert.equal(row.status, 200);
  assert.deepEqual(row.json<{ rows: unknown[] }>().rows, [{
    pk1: "a/b",
    pk2: ".c-d",
    content: "c",
  }]);
  // Percent-encoded names (older links) are sent to the tilde form.
  const legacy = await svc.client.get("/fixtures/table%2Fwith%2Fslashes%2Ecsv");
  assert.equal(legacy.status, 302);
  assert.equal(legacy.headers.get("location"), "/fixtures/table~2Fwith~2Fslashes~2Ecsv");
});

Deno.test("percent-encoded names go to the reference's tilde form: ~ as ~7E, %XX as ~XX, . as ~2E", async () => {
  await using svc = referenceService();
  for (
    const [from, to] of [
      ["/fixtures/table%2Fwith%2Fslashes.csv", "/fixtures/table~2Fwith~2Fslashes~2Ecsv"],
      ["/foo/bar%2Fbaz?id=5", "/foo/bar~2Fbaz?id=5"],
      ["/fixtures/a~b%2Fc", "/fixtures/a~7Eb~2Fc"],
    ]
  ) {
    const response = await svc.client.get(from);
    assert.equal(response.status, 302, from);
    assert.equal(response.headers.get("location"), to, from);
  }
  // The first one leads to the table called "table/with/slashes.csv".
  const page = await svc.client.get("/fixtures/table~2Fwith~2Fslashes~2Ecsv.json?_extra=table");
  assert.equal(page.json<{ table: string }>().table, "table/with/slashes.csv");
});

Deno.test("the index answers at /-/ too, and /- redirects there (301), as in the reference", async () => {
  await using svc = referenceService();
  const index = await svc.client.get("/-/");
  assert.equal(index.status, 200);
  assert.match(index.text, /<body class="index">/);
  const json = await svc.client.get("/-/.json");
  assert.equal(json.status, 200);
  const listed = json.json<{ databases: { name: string }[] }>().databases;
  assert.deepEqual(listed.map((d) => d.name), ["fixtures"]);
  const dash = await svc.client.get("/-");
  assert.equal(dash.status, 301);
  assert.equal(dash.headers.get("location"), "/-/");
});

Deno.test("deliberate difference: a percent-encoded link keeps its format unless the dot is in a name", async () => {
  await using svc = referenceService();
  // No table is called "simple_primary_key.json": the `.json` is a format, and stays one.
  const old = await svc.client.get("/fixtures/simple%5Fprimary%5Fkey.json?_shape=array");
  assert.equal(old.status, 302);
  assert.equal(old.headers.get("location"), "/fixtures/simple~5Fprimary~5Fkey.json?_shape=array");
  const followed = await svc.client.get(old.headers.get("location")!);
  assert.equal(followed.json<unknown[]>().length, 4);
});
