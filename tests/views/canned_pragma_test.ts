/**
 * Issue 37 item 14: a canned query is the owner's SQL, so it may read any pragma (the reference
 * serves its `pragma_cache_size` fixture query); visitor SQL stays held to the few it may read,
 * and nobody's SQL may set a pragma on the shared read connections.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

const queries = {
  pragma_cache_size: "PRAGMA cache_size;",
  cache_size_function: "select * from pragma_cache_size()",
  set_cache_size: "PRAGMA cache_size = 1234;",
};

function service() {
  return referenceService({ metadata: { databases: { fixtures: { queries } } } });
}

Deno.test("a canned query may read a pragma, as a statement or a function", async () => {
  await using svc = service();
  for (const name of ["pragma_cache_size", "cache_size_function"]) {
    const response = await svc.client.get(`/fixtures/${name}.json?_shape=array`);
    assert.equal(response.status, 200, `${name}: ${response.text}`);
    const rows = response.json();
    assert.equal(rows.length, 1, name);
    assert.equal(typeof rows[0].cache_size, "number", name);
  }
  const html = await svc.client.get("/fixtures/pragma_cache_size");
  assert.equal(html.status, 200);
  assert.match(html.text, /cache_size/);
});

Deno.test("no SQL may set a pragma; visitor SQL may not read this one", async () => {
  await using svc = service();
  const set = await svc.client.get("/fixtures/set_cache_size.json");
  assert.equal(set.status, 400);
  assert.match(set.json().error, /not authorized/);
  // The pragma the owner read is still the connection's own.
  const after = (await svc.client.get("/fixtures/pragma_cache_size.json?_shape=array")).json();
  assert.notEqual(after[0].cache_size, 1234);
  const custom = await svc.client.get(
    `/fixtures/-/query.json?sql=${encodeURIComponent("select * from pragma_cache_size()")}`,
  );
  assert.equal(custom.status, 400);
  // A visitor's _where= clause goes through the visitor authorizer too.
  const where = await svc.client.get(
    `/fixtures/facetable.json?_where=${
      encodeURIComponent("pk in (select cache_size from pragma_cache_size())")
    }`,
  );
  assert.equal(where.status, 400);
});
