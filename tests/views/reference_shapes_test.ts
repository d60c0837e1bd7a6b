/**
 * Issue 16 class 2: `_shape=object` answers as the reference does (its renderer and its tests),
 * with its messages where there is no primary key to key rows by — as a 400, like its later
 * versions (the spec era's answered 200 with `"ok": false`; see "Deliberate differences").
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

Deno.test("_shape=object keys rows by primary key, compound keys tilde-encoded", async () => {
  await using svc = referenceService();
  const simple = (await svc.client.get("/fixtures/simple_primary_key.json?_shape=object")).json();
  assert.deepEqual(Object.keys(simple), ["1", "2", "3", "4"]);
  assert.deepEqual(simple["1"], { id: "1", content: "hello" });
  const compound = (await svc.client.get("/fixtures/compound_primary_key.json?_shape=object"))
    .json();
  assert.deepEqual(compound, {
    "a,b": { pk1: "a", pk2: "b", content: "c" },
    "a~2Fb,~2Ec-d": { pk1: "a/b", pk2: ".c-d", content: "c" },
  });
});

Deno.test("_shape=object on a rowid table, a view or a query is a 400 with the reference's message", async () => {
  await using svc = referenceService();
  const cases: [string, string][] = [
    [
      "/fixtures/no_primary_key.json?_shape=object",
      "_shape=object not available for tables with no primary keys",
    ],
    [
      "/fixtures/simple_view.json?_shape=object",
      "_shape=object not available for tables with no primary keys",
    ],
    [
      "/fixtures/-/query.json?sql=select+1&_shape=object",
      "_shape=object is only available on tables",
    ],
  ];
  for (const [path, message] of cases) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 400, path);
    assert.equal(response.json().error, message, path);
  }
});
