/**
 * The SQL of the PostgreSQL dialect (issue 43), as text. Whether PostgreSQL answers it as SQLite
 * answers the SQLite dialect is the differential test's business (tests/db/postgres_differential_test.ts).
 */
import assert from "node:assert/strict";
import { sqliteDialect } from "../../src/db/dialect.ts";
import {
  createPostgresDialect,
  globToRegex,
  JSON_FLAT_ARRAY,
  postgresDialect as pg,
} from "../../src/db/postgres_dialect.ts";
import { Filters } from "../../src/table/filters.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import { searchFilterArguments } from "../../src/table/search.ts";
import { tableRequest } from "../table/_shop.ts";

const request = (query: string, _columns: string[]) => tableRequest(query);

Deno.test("identifiers are always double-quoted, schema-qualified tables split", () => {
  assert.equal(pg.escapeIdentifier("price"), '"price"');
  assert.equal(pg.escapeIdentifier('we"ird'), '"we""ird"');
  assert.equal(pg.tableName("sales.orders"), '"sales.orders"');
  const two = createPostgresDialect({ qualified_schemas: ["sales"] });
  assert.equal(two.tableName("sales.orders"), '"sales"."orders"');
  assert.equal(two.tableName("other.orders"), '"other.orders"');
});

Deno.test("filters: ilike without escape character, text comparisons, dates, arrays", () => {
  const filters = new Filters([
    ["name__contains", "a\\b"],
    ["id__isblank", "1"],
    ["made__date", "2020-01-02"],
    ["tags__arraycontains", "x"],
    ["code__glob", "A?[0-9]*"],
  ]);
  const { where_clauses, params } = filters.build_where_clauses("things", pg);
  // Pairs are sorted by key: code, id, made, name, tags.
  assert.deepEqual(where_clauses, [
    `("code")::text ~ :p0`,
    `("id" is null or ("id")::text = '')`,
    `(case when ("made")::text ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([ T]|$)' ` +
    `then substr(("made")::text, 1, 10) end) = :p1`,
    `("name")::text ilike :p2 escape ''`,
    `:p3 in (select jsonb_array_elements_text((case jsonb_typeof(to_jsonb("things"."tags")) ` +
    `when 'array' then to_jsonb("things"."tags") when 'string' then case when ` +
    `("things"."tags")::text ~ '${JSON_FLAT_ARRAY}' then ("things"."tags")::text::jsonb end end)))`,
  ]);
  assert.deepEqual(params, { p0: "^A.[0-9].*$", p1: "2020-01-02", p2: "%a\\b%", p3: "x" });
});

Deno.test("glob patterns become anchored, case-sensitive regular expressions", () => {
  assert.equal(globToRegex("*.txt"), "^.*\\.txt$");
  assert.equal(globToRegex("a?c"), "^a.c$");
  assert.equal(globToRegex("[^a-c]x"), "^[^a-c]x$");
  assert.equal(globToRegex("[]]"), "^[]]$");
  assert.equal(globToRegex("(1+1)"), "^\\(1\\+1\\)$");
  assert.equal(globToRegex("a[b"), "^a\\[b$");
  for (
    const [pattern, text, matches] of [
      ["*.txt", "notes.txt", true],
      ["*.txt", "notes.TXT", false],
      ["a?c", "abc", true],
      ["a?c", "abbc", false],
      ["[^a-c]x", "dx", true],
      ["[^a-c]x", "bx", false],
      ["a[b", "a[b", true],
    ] as const
  ) {
    assert.equal(new RegExp(globToRegex(pattern)).test(text), matches, `${pattern} ${text}`);
  }
});

Deno.test("the flat JSON array test accepts JSON arrays of scalars and nothing else", () => {
  const flat = new RegExp(JSON_FLAT_ARRAY);
  for (const text of ['["a", "b"]', "[]", " [ 1 , -2.5e3, true, null ] ", '["\\u00e9\\n"]']) {
    assert.ok(flat.test(text), text);
    JSON.parse(text);
  }
  for (
    const text of ["[1,", '["a"', "[01]", '["a\\q"]', "[[1]]", '{"a": 1}', "not json", "[abc]"]
  ) {
    assert.ok(!flat.test(text), text);
  }
});

Deno.test("a table page: NULLs ordered as in SQLite, offset-only exports, no rowid", () => {
  const columns = ["id", "name", "price"];
  const query = buildTableQuery({
    table: { name: "products", columns, pks: ["id"], is_view: false },
    request: request("_sort_desc=price&_sort=name&_next=5,a,3", columns),
    dialect: pg,
  });
  assert.equal(
    query.sql,
    `select "id", "name", "price" from "products" where ` +
      `("price" < :p2 or "price" is null or ("price" = :p2 and ` +
      `("name" > :p1 or ("name" = :p1 and (("id" > :p0)))))) ` +
      `order by "price" desc nulls last, "name" nulls first, "id" limit 101`,
  );
  const keyless = buildTableQuery({
    table: { name: "log", columns: ["at", "text"], pks: [], is_view: false },
    request: request("_next=100", ["at", "text"]),
    dialect: pg,
  });
  assert.equal(keyless.use_rowid, false);
  assert.deepEqual(keyless.columns, ["at", "text"]);
  assert.deepEqual(keyless.primary_keys, []);
  assert.equal(keyless.sql, `select "at", "text" from "log" order by ctid limit 101 offset 100`);
  assert.equal(keyless.export_sql, `select "at", "text" from "log" order by ctid offset 100`);
  // The same request on SQLite keeps its rowid keyset.
  const sqlite = buildTableQuery({
    table: { name: "log", columns: ["at", "text"], pks: [], is_view: false },
    request: request("_next=100", ["at", "text"]),
    dialect: sqliteDialect,
  });
  assert.equal(
    sqlite.sql,
    "select rowid, at, text from log where rowid > :p0 order by rowid limit 101",
  );
});

Deno.test("search: to_tsvector over the configured columns, ranked best first", () => {
  const args = new URLSearchParams("_search=dog cat");
  const facts = { table: "docs", text_columns: ["title", "body"] };
  const escaped = searchFilterArguments(args, facts, { search_columns: ["title", "body"] }, pg);
  const vector =
    `to_tsvector('simple'::regconfig, concat_ws(' ', ("title")::text, ("body")::text))`;
  assert.deepEqual(escaped.filter_arguments.where_clauses, [
    `${vector} @@ plainto_tsquery('simple'::regconfig, :search)`,
  ]);
  assert.deepEqual(escaped.filter_arguments.params, { search: "dog cat" });
  assert.equal(
    escaped.rank_expression,
    `-ts_rank(${vector}, plainto_tsquery('simple'::regconfig, :search))`,
  );
  const raw = searchFilterArguments(
    new URLSearchParams("_search=dog or cat&_searchmode=raw"),
    { table: "docs", search_vector: "doc" },
    {},
    pg,
  );
  assert.deepEqual(raw.filter_arguments.where_clauses, [`"doc" @@ websearch_to_tsquery(:search)`]);
  // Without a vector or configured columns, `_q` still searches the text columns with ilike.
  const plain = searchFilterArguments(new URLSearchParams("_q=Dog"), facts, {}, pg);
  assert.deepEqual(plain.filter_arguments.where_clauses, [
    `(("title")::text ilike :q escape '' or ("body")::text ilike :q escape '')`,
  ]);
  assert.equal(plain.filter_arguments.extra_context.supports_search, false);
});

Deno.test("facet SQL names every subquery, as PostgreSQL 15 requires", () => {
  for (
    const sql of [
      pg.arrayFacetSql("select * from t", '"tags"', 31),
      pg.arrayKindCountsSql("select * from t", ['"tags"', '"other"'], 1000),
      pg.arraySampleSql("select * from t", '"tags"'),
      pg.dateFacetSql("select * from t", '"made"', 31),
      pg.dateSuggestSql("select * from t", ['"made"', '"other"']),
    ]
  ) {
    assert.match(sql, /\(select \* from t\) as \w+ /, sql);
  }
  assert.equal(pg.subquery("select 1"), "(select 1) as vitrine_rows");
  assert.equal(sqliteDialect.subquery("select 1"), "(select 1)");
});

Deno.test("the SQLite dialect writes the SQL SQLite always got", () => {
  const sql = "select * from t";
  assert.equal(
    sqliteDialect.arrayFacetSql(sql, "tags", 31),
    "select facet_item as value, count(*) as count from (select distinct item.value as " +
      "facet_item, inner_rows.* from (select * from t) as inner_rows, json_each(inner_rows.tags) " +
      "as item where json_valid(inner_rows.tags)) group by 1 order by 2 desc, 1 limit 31",
  );
  assert.equal(
    sqliteDialect.dateFacetSql(sql, "added", 31),
    "select date(added) as value, count(*) as count from (select * from t) " +
      "where date(added) is not null group by 1 order by 2 desc, 1 limit 31",
  );
  assert.equal(
    sqliteDialect.arrayContains("my table", "tags", ":p0", true),
    ":p0 not in (select value from json_each([my table].tags))",
  );
  assert.equal(sqliteDialect.like('"name"', ":p0", true), '"name" not like :p0');
  assert.equal(sqliteDialect.date('"d"'), 'date("d")');
  assert.equal(sqliteDialect.orderTerm("price", true), "price desc");
  assert.equal(sqliteDialect.offsetOnly(20), " limit -1 offset 20");
  assert.equal(sqliteDialect.fullText({ text_columns: ["a"] }, ":search", false), null);
});
