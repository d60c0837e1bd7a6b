/**
 * The frozen 1.0 JSON API's keys and shapes (issue 44), on the reference-shaped `fixtures`
 * database: each key a client of 1.0 reads, and the older spellings clients of the spec's era
 * still send. docs/json-api.md "Changed from earlier versions" lists the same changes.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";
import { signedIn } from "./_auth_helpers.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

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

/** Canned queries shaped like the reference fixtures' configuration. */
const QUERIES = {
  databases: {
    fixtures: {
      queries: {
        "𝐜𝐢𝐭𝐢𝐞𝐬": "select id, name from facet_cities order by id limit 1;",
        pragma_cache_size: "PRAGMA cache_size;",
        magic_parameters: {
          sql: "select :_header_user_agent as user_agent, :_now_datetime_utc as datetime",
        },
        neighborhood_search: {
          sql: "select _neighborhood from facetable where _neighborhood like '%' || :text || '%'",
          title: "Search neighborhoods",
          description_html: "<b>Demonstrating</b> simple like search",
          fragment: "fragment-goes-here",
          hide_sql: true,
        },
        add_note: {
          sql: "insert into notes (body) values (:body)",
          write: true,
          params: ["body"],
          on_success_message: "Noted",
          on_error_redirect: "/fixtures",
        },
      },
    },
  },
};

Deno.test("the database JSON lists queries with 1.0's keys, order and list keys", async () => {
  await using svc = referenceService({ metadata: QUERIES });
  const body = (await svc.client.get("/fixtures.json")).json() as Body;
  assert.deepEqual(Object.keys(body), [
    "ok",
    "database",
    "private",
    "path",
    "size",
    "tables",
    "hidden_count",
    "views",
    "queries",
    "queries_more",
    "queries_count",
    "allow_execute_sql",
    "table_columns",
    "metadata",
  ]);
  assert.equal(body.ok, true);
  assert.deepEqual([body.queries_more, body.queries_count], [false, 5]);
  const queries = body.queries as Body[];
  // By title, else name, ignoring case: as 1.0 orders them.
  assert.deepEqual(queries.map((q) => q.name), [
    "add_note",
    "magic_parameters",
    "pragma_cache_size",
    "neighborhood_search",
    "𝐜𝐢𝐭𝐢𝐞𝐬",
  ]);
  const search = queries[3];
  assert.deepEqual(search, {
    database: "fixtures",
    name: "neighborhood_search",
    sql: "select _neighborhood from facetable where _neighborhood like '%' || :text || '%'",
    title: "Search neighborhoods",
    description: null,
    description_html: "<b>Demonstrating</b> simple like search",
    hide_sql: true,
    fragment: "fragment-goes-here",
    parameters: [],
    is_write: false,
    is_private: false,
    is_trusted: true,
    source: "config",
    owner_id: null,
    on_success_message: null,
    on_success_message_sql: null,
    on_success_redirect: null,
    on_error_message: null,
    on_error_redirect: null,
    write: false,
    private: false,
  });
  const write = queries[0];
  assert.deepEqual(
    [write.is_write, write.write, write.parameters, write.on_success_message],
    [true, true, ["body"], "Noted"],
  );
  assert.equal(write.on_error_redirect, "/fixtures");
});

Deno.test("the database JSON lists stored queries beside canned ones, and each table's count_truncated", async () => {
  await using svc = referenceService({ metadata: QUERIES });
  await svc.stored_queries.add("fixtures", "big_cities", "alice", {
    sql: "select name from facet_cities",
    title: "Big cities",
    description: null,
    description_html: null,
    hide_sql: false,
    fragment: null,
    parameters: [],
    is_private: false,
    shared_with: [],
  });
  const body = (await svc.client.get("/fixtures.json")).json() as Body;
  const queries = body.queries as Body[];
  assert.deepEqual(queries.map((q) => q.name).slice(0, 2), ["add_note", "big_cities"]);
  const stored = queries[1];
  assert.deepEqual(Object.keys(stored).slice(0, 19), Object.keys(queries[0]).slice(0, 19));
  assert.deepEqual([stored.source, stored.owner_id, stored.private], ["user", "alice", false]);
  assert.equal(body.queries_count, 6);
  const facetable = (body.tables as Body[]).find((t) => t.name === "facetable")!;
  const keys = Object.keys(facetable);
  assert.equal(keys[keys.indexOf("count") + 1], "count_truncated");
  assert.deepEqual([facetable.count, facetable.count_truncated], [15, false]);
  // Views by name.
  assert.deepEqual((body.views as Body[]).map((v) => v.name), ["simple_view"]);
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

Deno.test("query JSON answers _extra=metadata and writes its extras after the rows", async () => {
  await using svc = referenceService({
    metadata: {
      databases: {
        fixtures: {
          description: "Test tables",
          queries: QUERIES.databases.fixtures.queries,
        },
      },
    },
  });
  const custom = (await svc.client.get(
    "/fixtures/-/query.json?sql=select+1+as+one&_extra=query,metadata",
  )).json() as Body;
  assert.deepEqual(Object.keys(custom), ["ok", "rows", "query", "metadata", "truncated"]);
  assert.deepEqual(custom.metadata, { description: "Test tables" });
  const canned = (await svc.client.get(
    "/fixtures/neighborhood_search.json?text=town&_extra=metadata",
  )).json() as Body;
  const metadata = canned.metadata as Body;
  assert.equal(metadata.name, "neighborhood_search");
  assert.equal(metadata.title, "Search neighborhoods");
  assert.equal(metadata.hide_sql, true);
  assert.equal("source" in metadata, false);
  assert.equal(Object.keys(metadata).length, 18);
});

Deno.test("foreign keys are listed in 1.0's order: other table, column, other column", async () => {
  // Declared out of order, so that SQLite's own order (last declared first) is not the answer.
  const path = `${Deno.makeTempDirSync({ prefix: "vitrine-fk-order-" })}/fks.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    create table zeta (id integer primary key);
    create table alpha (id integer primary key, b text, a text);
    create table links (
      id integer primary key,
      a_id integer references alpha(id),
      z_id integer references zeta(id),
      b_id integer references alpha(id)
    );
    insert into alpha values (1, 'x', 'y');
    insert into links values (1, 1, null, 1);
  `);
  conn.close();
  await using svc = new Service({ files: [path] });
  const body = (await svc.client.get("/fks.json")).json() as Body;
  const links = (body.tables as Body[]).find((t) => t.name === "links")!;
  const outgoing = (links.foreign_keys as { outgoing: Body[] }).outgoing;
  assert.deepEqual(outgoing.map((fk) => [fk.other_table, fk.column]), [
    ["alpha", "a_id"],
    ["alpha", "b_id"],
    ["zeta", "z_id"],
  ]);
  const row = (await svc.client.get("/fks/alpha/1.json?_extra=foreign_key_tables")).json() as Body;
  assert.deepEqual((row.foreign_key_tables as Body[]).map((fk) => fk.other_column), [
    "a_id",
    "b_id",
  ]);
  Deno.removeSync(path.replace(/\/fks\.db$/, ""), { recursive: true });
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
