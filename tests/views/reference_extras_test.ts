/**
 * Issue 16 class 6: the `_extra=` blocks whose details clients read, on the reference's fixture
 * shapes: `display_columns` keys, `metadata.columns`, `renderers` URLs, the `extras` list and
 * `custom_table_templates` names.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

const METADATA = {
  databases: {
    fixtures: {
      tables: { facetable: { description: "Facets", columns: { state: "The US state" } } },
    },
  },
};

type Column = Record<string, unknown>;
type Extra = { name: string; description: string; toggle_url: string; selected: boolean };

Deno.test("display_columns carries the reference's keys; tables lead with the key or Link", async () => {
  await using svc = referenceService({ metadata: METADATA });
  const get = async (path: string) =>
    (await svc.client.get(path)).json<{ display_columns: Column[] }>().display_columns;
  const facetable = await get("/fixtures/facetable.json?_extra=display_columns&_size=1");
  assert.deepEqual(facetable.map((c) => c.name), [
    "pk",
    "created",
    "planet_int",
    "on_earth",
    "state",
    "_city_id",
    "_neighborhood",
    "tags",
  ]);
  assert.deepEqual(facetable[4], {
    name: "state",
    sortable: true,
    is_pk: false,
    type: "TEXT",
    notnull: 0,
    description: "The US state",
    column_type: null,
    column_type_config: null,
  });
  assert.equal(facetable[0].is_pk, true);
  // A rowid table: a Link column, then rowid (the key, type "integer"), then the columns.
  const rowid = await get("/fixtures/no_primary_key.json?_extra=display_columns&_size=1");
  assert.deepEqual(rowid.map((c) => c.name), ["Link", "rowid", "content", "a", "b", "c"]);
  assert.deepEqual(rowid[0], {
    name: "Link",
    sortable: false,
    is_pk: false,
    type: "",
    notnull: 0,
    is_special_link_column: true,
  });
  assert.equal(rowid[1].is_pk, true);
  assert.equal(rowid[1].type, "integer");
  const compound = await get("/fixtures/compound_primary_key.json?_extra=display_columns");
  assert.deepEqual(compound.map((c) => c.name), ["Link", "pk1", "pk2", "content"]);
  const view = await get("/fixtures/simple_view.json?_extra=display_columns");
  assert.deepEqual(view.map((c) => c.name), ["content", "upper_content"]);
});

Deno.test("display_columns notnull follows the schema", async () => {
  await using svc = referenceService();
  const db = svc.get_database("fixtures");
  await db.execute_write("create table strict_ones (id integer primary key, v text not null)");
  const columns = (await svc.client.get("/fixtures/strict_ones.json?_extra=display_columns"))
    .json<{ display_columns: Column[] }>().display_columns;
  assert.deepEqual(columns.map((c) => [c.name, c.notnull]), [["id", 0], ["v", 1]]);
});

Deno.test("metadata always includes columns; custom_table_templates has the reference's names", async () => {
  await using svc = referenceService({ metadata: METADATA });
  const facetable = (await svc.client.get(
    "/fixtures/facetable.json?_extra=metadata&_extra=custom_table_templates",
  )).json();
  assert.deepEqual(facetable.metadata, {
    description: "Facets",
    columns: { state: "The US state" },
  });
  assert.deepEqual(facetable.custom_table_templates, [
    "_table-fixtures-facetable.html",
    "_table-table-fixtures-facetable.html",
    "_table.html",
  ]);
  const plain = (await svc.client.get("/fixtures/simple_primary_key.json?_extra=metadata"))
    .json();
  assert.deepEqual(plain.metadata, { columns: {} });
});

Deno.test("renderers keep the query string as written and ask for labels on FK tables", async () => {
  await using svc = referenceService();
  const facetable = (await svc.client.get(
    "/fixtures/facetable.json?_extra=renderers,count&state=CA",
  )).json();
  assert.deepEqual(facetable.renderers, {
    json: "/fixtures/facetable.json?_extra=renderers,count&state=CA&_labels=on",
  });
  const plain = (await svc.client.get("/fixtures/simple_primary_key.json?_extra=renderers"))
    .json();
  assert.deepEqual(plain.renderers, {
    json: "/fixtures/simple_primary_key.json?_extra=renderers",
  });
});

Deno.test("extras lists every block with a description, a toggle URL and whether it is on", async () => {
  await using svc = referenceService();
  const extras = (await svc.client.get("/fixtures/facetable.json?_extra=extras&_extra=count"))
    .json<{ extras: Extra[] }>().extras;
  const byName = new Map(extras.map((extra) => [extra.name, extra]));
  for (const extra of extras) {
    assert.ok(extra.description.length > 0, `${extra.name} has a description`);
  }
  assert.deepEqual(byName.get("count")!.selected, true);
  assert.equal(
    byName.get("count")!.toggle_url,
    "http://localhost/fixtures/facetable.json?_extra=extras",
  );
  assert.equal(byName.get("count_truncated")!.selected, true);
  assert.equal(byName.get("table")!.selected, false);
  assert.equal(
    byName.get("table")!.toggle_url,
    "http://localhost/fixtures/facetable.json?_extra=extras&_extra=count&_extra=table",
  );
  // Following a toggle URL turns that block on.
  const followed = await svc.client.get(byName.get("table")!.toggle_url);
  assert.equal(followed.json().table, "facetable");
});
