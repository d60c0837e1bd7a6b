/**
 * The frozen 1.0 JSON API's database page (issue 44), on the reference-shaped `fixtures`
 * database: queries with 1.0's keys, order and list keys, stored queries beside canned ones, each
 * table's `count_truncated`, foreign keys in 1.0's order, and a query page's `_extra=metadata`.
 * docs/json-api.md "Changed from earlier versions" lists the same changes.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

type Body = Record<string, unknown>;

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
