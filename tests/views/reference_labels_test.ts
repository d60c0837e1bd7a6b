/**
 * Issue 16 class 3: `_labels=on` expands every foreign key as the reference does, on its
 * `foreign_key_references` shape (a FK to a table with a label column, one whose label is blank,
 * one to a table without a label column, and a row of NULLs).
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

Deno.test("_labels=on: a FK without a label column gets its value as the label", async () => {
  await using svc = referenceService();
  const rows =
    (await svc.client.get("/fixtures/foreign_key_references.json?_shape=array&_labels=on"))
      .json();
  assert.deepEqual(rows, [
    {
      pk: "1",
      foreign_key_with_label: { value: "1", label: "hello" },
      foreign_key_with_blank_label: { value: "3", label: "" },
      foreign_key_with_no_label: { value: "1", label: "1" },
    },
    {
      pk: "2",
      foreign_key_with_label: null,
      foreign_key_with_blank_label: null,
      foreign_key_with_no_label: null,
    },
  ]);
  // _label= picks one column, with or without a label column.
  const one = (await svc.client.get(
    "/fixtures/foreign_key_references.json?_shape=array&_label=foreign_key_with_no_label&_size=1",
  )).json();
  assert.deepEqual(one[0].foreign_key_with_no_label, { value: "1", label: "1" });
  assert.equal(one[0].foreign_key_with_label, "1");
  // An integer key's label is its text, as the reference gives it.
  const cities = (await svc.client.get("/fixtures/facetable.json?_shape=array&_labels=on&_size=1"))
    .json();
  assert.deepEqual(cities[0]._city_id, { value: 1, label: "San Francisco" });
});

Deno.test("CSV with _labels=on adds a _label column after each FK column", async () => {
  await using svc = referenceService();
  const csv = (await svc.client.get("/fixtures/foreign_key_references.csv?_labels=on")).text;
  assert.equal(
    csv,
    "pk,foreign_key_with_label,foreign_key_with_label_label,foreign_key_with_blank_label," +
      "foreign_key_with_blank_label_label,foreign_key_with_no_label,foreign_key_with_no_label_label\r\n" +
      "1,1,hello,3,,1,1\r\n" +
      "2,,,,,,\r\n",
  );
  const facetable = (await svc.client.get("/fixtures/facetable.csv?_labels=on&_size=1")).text;
  assert.match(
    facetable,
    /^pk,created,planet_int,on_earth,state,_city_id,_city_id_label,_neighborhood,tags\r\n/,
  );
});

Deno.test("the HTML page links a FK without a label column by its value only", async () => {
  await using svc = referenceService();
  const html = (await svc.client.get("/fixtures/foreign_key_references")).text;
  assert.match(html, /<a href="\/fixtures\/primary_key_multiple_columns\/1">1<\/a><\/td>/);
  assert.match(html, /<a href="\/fixtures\/simple_primary_key\/1">hello<\/a>/);
});
