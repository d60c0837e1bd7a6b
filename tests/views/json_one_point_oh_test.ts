/**
 * The frozen 1.0 JSON API's keys and shapes (issue 44), on the reference-shaped `fixtures`
 * database: each key a client of 1.0 reads, and the older spellings clients of the spec's era
 * still send. docs/json-api.md "Changed from earlier versions" lists the same changes.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";
import { signedIn } from "./_auth_helpers.ts";

type Body = Record<string, unknown>;

Deno.test("table JSON always has next_url: the next page's absolute URL, null on the last page", async () => {
  await using svc = referenceService();
  const first = await svc.client.get("/fixtures/facetable.json?_size=5");
  const body = first.json() as Body;
  assert.deepEqual(Object.keys(body), ["ok", "next", "next_url", "rows", "truncated"]);
  assert.equal(body.next, "5");
  assert.equal(body.next_url, "http://localhost/fixtures/facetable.json?_size=5&_next=5");
  assert.equal(first.headers.get("link"), `<${body.next_url}>; rel="next"`);
  const last = (await svc.client.get("/fixtures/facetable.json?_size=5&_next=10")).json() as Body;
  assert.equal(last.next, null);
  assert.equal(last.next_url, null);
  assert.equal((last.rows as unknown[]).length, 5);
});

Deno.test("view JSON and the arrays shape carry next_url too", async () => {
  await using svc = referenceService();
  const view = (await svc.client.get("/fixtures/simple_view.json?_size=2")).json() as Body;
  assert.deepEqual(Object.keys(view), ["ok", "next", "next_url", "rows", "truncated"]);
  assert.equal(view.next_url, "http://localhost/fixtures/simple_view.json?_size=2&_next=2");
  const arrays = (await svc.client.get("/fixtures/simple_primary_key.json?_shape=arrays"))
    .json() as Body;
  assert.deepEqual(Object.keys(arrays), ["ok", "next", "next_url", "rows", "truncated"]);
  assert.equal(arrays.next_url, null);
});

Deno.test("_extra=next_url, the older spelling, still answers (once, after next)", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get("/fixtures/facetable.json?_size=5&_extra=next_url"))
    .json() as Body;
  assert.deepEqual(Object.keys(body), ["ok", "next", "next_url", "rows", "truncated"]);
  assert.equal(
    body.next_url,
    "http://localhost/fixtures/facetable.json?_size=5&_extra=next_url&_next=5",
  );
});

Deno.test("_extra=count brings count_truncated right after count", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get("/fixtures/facetable.json?_extra=count&_size=1"))
    .json() as Body;
  assert.deepEqual(Object.keys(body), [
    "ok",
    "next",
    "next_url",
    "count",
    "count_truncated",
    "rows",
    "truncated",
  ]);
  assert.equal(body.count, 15);
  assert.equal(body.count_truncated, false);
  // Asked for on its own, or before count, it is there once.
  const both = (await svc.client.get(
    "/fixtures/facetable.json?_extra=count_truncated,count&_size=1",
  )).json() as Body;
  assert.deepEqual([both.count_truncated, both.count], [false, 15]);
});

Deno.test("_extra=count,columns,primary_keys answers all three (columns was left out)", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get(
    "/fixtures/simple_primary_key.json?_extra=count,columns,primary_keys",
  )).json() as Body;
  assert.deepEqual(Object.keys(body), [
    "ok",
    "next",
    "next_url",
    "count",
    "count_truncated",
    "columns",
    "primary_keys",
    "rows",
    "truncated",
  ]);
  assert.deepEqual(body.columns, ["id", "content"]);
  assert.deepEqual(body.primary_keys, ["id"]);
  assert.equal(body.count, 4);
  // Repeated arguments, as before.
  const repeated = (await svc.client.get(
    "/fixtures/simple_primary_key.json?_extra=count&_extra=columns",
  )).json() as Body;
  assert.deepEqual(repeated.columns, ["id", "content"]);
});

Deno.test("row JSON leads with ok, as 1.0 writes it", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get("/fixtures/simple_primary_key/1.json")).json() as Body;
  const keys = Object.keys(body).filter((key) => key !== "query_ms");
  assert.deepEqual(keys, [
    "ok",
    "database",
    "table",
    "rows",
    "primary_keys",
    "primary_key_values",
    "truncated",
  ]);
  assert.deepEqual(body.rows, [{ id: "1", content: "hello" }]);
});

Deno.test("/.json lists the databases after ok, as 1.0 does (it was an object keyed by name)", async () => {
  await using svc = referenceService({ metadata: { title: "Fixtures" } });
  const body = (await svc.client.get("/.json")).json() as Body;
  assert.deepEqual(Object.keys(body), ["ok", "unstable", "databases", "metadata"]);
  assert.equal(body.ok, true);
  assert.equal(typeof body.unstable, "string");
  const [fixtures, ...others] = body.databases as Body[];
  assert.deepEqual(others, []);
  assert.equal(fixtures.name, "fixtures");
  assert.equal(fixtures.path, "/fixtures");
  assert.ok(Array.isArray(fixtures.tables_and_views_truncated));
  assert.deepEqual(body.metadata, { title: "Fixtures" });
});

Deno.test("/-/databases.json is 1.0's {ok, databases: [...]} (it was a bare list)", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get("/-/databases.json")).json() as Body;
  assert.deepEqual(Object.keys(body), ["ok", "databases"]);
  const [entry] = body.databases as Body[];
  assert.deepEqual(Object.keys(entry), [
    "name",
    "route",
    "path",
    "size",
    "is_mutable",
    "is_memory",
    "hash",
  ]);
  assert.equal(entry.name, "fixtures");
});

Deno.test("/-/ JSON pages that answer an object lead with ok: true; /-/plugins.json stays a list", async () => {
  await using svc = referenceService({ secret: "s", root: true });
  const cookies = signedIn(svc, { id: "root" });
  for (const page of ["actor", "versions", "settings", "config", "metadata", "threads"]) {
    const body = (await svc.client.get(`/-/${page}.json`, { cookies })).json() as Body;
    assert.equal(Object.keys(body)[0], "ok", page);
    assert.equal(body.ok, true, page);
  }
  assert.deepEqual((await svc.client.get("/-/actor.json")).json(), { ok: true, actor: null });
  const settings = (await svc.client.get("/-/settings.json")).json() as Body;
  assert.equal(settings.default_page_size, 100);
  assert.ok(Array.isArray((await svc.client.get("/-/plugins.json")).json()));
  // The HTML twin shows the data itself, without the JSON envelope.
  const html = (await svc.client.get("/-/actor")).text;
  assert.doesNotMatch(html, /&quot;ok&quot;|"ok"/);
});

Deno.test("a failed query's JSON carries errors and status, in every shape", async () => {
  await using svc = referenceService();
  for (const shape of ["", "&_shape=array", "&_shape=arrays", "&_shape=object"]) {
    const response = await svc.client.get(`/fixtures/-/query.json?sql=select+*+from+nope${shape}`);
    assert.equal(response.status, 400, shape);
    assert.deepEqual(response.json(), {
      ok: false,
      rows: [],
      error: "no such table: nope",
      errors: ["no such table: nope"],
      status: 400,
      truncated: false,
    }, shape);
  }
  // The spec's form of the URL, and a canned query, answer the same.
  const direct = (await svc.client.get("/fixtures.json?sql=select+*+from+nope")).json() as Body;
  assert.deepEqual([direct.errors, direct.status], [["no such table: nope"], 400]);
});

Deno.test("an empty or missing ?sql= says ?sql= is required", async () => {
  await using svc = referenceService();
  for (const path of ["/fixtures/-/query.json?sql=", "/fixtures/-/query.json"]) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 400, path);
    const body = response.json() as Body;
    assert.equal(body.error, "?sql= is required", path);
    assert.deepEqual(body.errors, ["?sql= is required"], path);
  }
  // The HTML editor with nothing in it is still a page, not an error.
  assert.equal((await svc.client.get("/fixtures/-/query?sql=")).status, 200);
});

Deno.test("row JSON answers 1.0's _extra= after the row; the plural _extras= still works", async () => {
  await using svc = referenceService();
  const body = (await svc.client.get(
    "/fixtures/simple_primary_key/1.json?_extra=columns,private,query,foreign_key_tables",
  )).json() as Body;
  const keys = Object.keys(body).filter((key) => key !== "query_ms");
  assert.deepEqual(keys, [
    "ok",
    "database",
    "table",
    "rows",
    "columns",
    "private",
    "query",
    "foreign_key_tables",
    "primary_keys",
    "primary_key_values",
    "truncated",
  ]);
  assert.deepEqual(body.columns, ["id", "content"]);
  assert.equal(body.private, false);
  assert.deepEqual(body.query, {
    sql: "select * from [simple_primary_key] where [id] = :p0",
    params: { p0: "1" },
  });
  const related = body.foreign_key_tables as Body[];
  assert.ok(related.some((r) => r.other_table === "foreign_key_references"));
  const plural = (await svc.client.get(
    "/fixtures/simple_primary_key/1.json?_extras=foreign_key_tables",
  )).json() as Body;
  assert.deepEqual(plural.foreign_key_tables, related);
  const more = (await svc.client.get(
    "/fixtures/simple_primary_key/1.json?_extra=primary_keys,database,table,metadata,render_cell",
  )).json() as Body;
  assert.deepEqual(more.primary_keys, ["id"]);
  assert.deepEqual(more.metadata, { columns: {} });
  assert.deepEqual(more.render_cell, [{}]);
  const unknown = await svc.client.get("/fixtures/simple_primary_key/1.json?_extra=count");
  assert.equal(unknown.status, 400);
  assert.equal((unknown.json() as Body).error, "Unknown _extra: count");
});

Deno.test("update with return answers 1.0's rows: [row] beside the older row", async () => {
  await using svc = referenceService({
    secret: "s",
    metadata: { permissions: { "update-row": { id: "writer" } } },
  });
  const response = await svc.client.post("/fixtures/simple_primary_key/1/-/update", {
    body: JSON.stringify({ update: { content: "changed" }, return: true }),
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("writer")}`,
    },
  });
  assert.equal(response.status, 200);
  const row = { id: "1", content: "changed" };
  assert.deepEqual(response.json(), { ok: true, row, rows: [row] });
});

Deno.test("_extra=column_types is 1.0's assignments: none in Vitrine, on tables and rows", async () => {
  await using svc = referenceService();
  const table = (await svc.client.get("/fixtures/facetable.json?_extra=column_types&_size=1"))
    .json() as Body;
  assert.deepEqual(table.column_types, {});
  const row = (await svc.client.get("/fixtures/facetable/1.json?_extra=column_types"))
    .json() as Body;
  assert.deepEqual(row.column_types, {});
});

Deno.test("query and row JSON answer 1.0's request, database_color, render_cell and column_details extras", async () => {
  await using svc = referenceService();
  const query = (await svc.client.get(
    "/fixtures/-/query.json?sql=select+1+as+one&_extra=request,database_color,render_cell",
  )).json() as Body;
  assert.deepEqual(Object.keys(query), [
    "ok",
    "rows",
    "request",
    "database_color",
    "render_cell",
    "truncated",
  ]);
  const request = query.request as Body;
  assert.equal(request.path, "/fixtures/-/query.json");
  assert.deepEqual((request.args as Body).sql, ["select 1 as one"]);
  assert.match(query.database_color as string, /^[0-9a-f]{6}$/);
  assert.deepEqual(query.render_cell, [{}]);
  const table = (await svc.client.get("/fixtures/facetable.json?_extra=database_color&_size=1"))
    .json() as Body;
  assert.equal(table.database_color, query.database_color);
  const row = (await svc.client.get(
    "/fixtures/facetable/1.json?_extra=request,database_color,column_details",
  )).json() as Body;
  assert.equal(row.database_color, query.database_color);
  assert.equal((row.request as Body).path, "/fixtures/facetable/1.json");
  const details = row.column_details as Body;
  assert.deepEqual(details.pk, {
    type: "INTEGER",
    sqlite_type: "INTEGER",
    notnull: false,
    default: null,
    is_pk: true,
    pk_position: 1,
    hidden: 0,
  });
  assert.deepEqual(Object.keys(details).slice(0, 2), ["pk", "created"]);
  // A compound key's positions, and affinities of declared types, on a table page.
  const compound = (await svc.client.get(
    "/fixtures/compound_primary_key.json?_extra=column_details&_size=1",
  )).json() as Body;
  const columns = compound.column_details as Record<string, Body>;
  assert.deepEqual(
    Object.values(columns).map((c) => [c.type, c.sqlite_type, c.is_pk, c.pk_position]),
    [["varchar(30)", "TEXT", true, 1], ["varchar(30)", "TEXT", true, 2], [
      "TEXT",
      "TEXT",
      false,
      0,
    ]],
  );
});
