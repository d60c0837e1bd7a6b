import assert from "node:assert/strict";
import { escapeFts, searchFilterArguments } from "../../src/table/search.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import {
  example,
  openShop,
  queryRows,
  requestOf,
  runTable,
  SHOP_TABLES,
  tableRequest,
} from "./_shop.ts";

Deno.test("_search matches example 23", async () => {
  const ex = example("23-search.json");
  const page = await runTable(openShop(), "products", requestOf(ex).args.toString());
  assert.deepEqual(page.rows, (ex.body as { rows: unknown[] }).rows);
  assert.equal(page.description, 'where search matches "garden"');
});

Deno.test("escapeFts quotes terms and balances quotes", () => {
  assert.equal(escapeFts("dog cat"), '"dog" "cat"');
  assert.equal(escapeFts('"hot dog" bun'), '"hot dog" "bun"');
  assert.equal(escapeFts('say "hi'), '"say" "hi"');
  assert.equal(escapeFts("a OR b*"), '"a" "OR" "b*"');
  assert.equal(escapeFts(""), "");
});

Deno.test("search modes: escaped by default, raw from the arg or config", () => {
  const facts = { table: "products", fts_table: "products_fts", fts_columns: ["name"] };
  const escaped = searchFilterArguments(new URLSearchParams("_search=a OR b"), facts);
  assert.deepEqual(escaped.filter_arguments.params, { search: '"a" "OR" "b"' });
  assert.deepEqual(escaped.filter_arguments.where_clauses, [
    "rowid in (select rowid from products_fts where products_fts match :search)",
  ]);
  const raw = searchFilterArguments(new URLSearchParams("_search=a OR b&_searchmode=raw"), facts);
  assert.equal(raw.filter_arguments.params.search, "a OR b");
  const config = searchFilterArguments(new URLSearchParams("_search=a OR b"), facts, {
    searchmode: "raw",
  });
  assert.equal(config.filter_arguments.params.search, "a OR b");
  const forced = searchFilterArguments(
    new URLSearchParams("_search=a OR b&_searchmode=escaped"),
    facts,
    { searchmode: "raw", fts_pk: "id" },
  );
  assert.equal(forced.filter_arguments.params.search, '"a" "OR" "b"');
  assert.match(forced.filter_arguments.where_clauses[0], /^id in /);
});

Deno.test("_search_<col> searches one FTS column; unknown columns are 400", async () => {
  const db = openShop();
  const page = await runTable(db, "products", "_search_name=hose");
  assert.deepEqual(page.rows.map((r) => r.id), [4]);
  assert.equal(page.description, 'where search column "name" matches "hose"');
  await assert.rejects(() => runTable(db, "products", "_search_notes=x"), {
    message: "Cannot search by that column",
    status: 400,
  });
});

Deno.test("_sort=_rank orders FTS5 matches by relevance and pages by offset", async () => {
  const db = openShop();
  db.exec(
    "insert into products (id, name) values (10, 'set set set'); " +
      "insert into products_fts (rowid, name) values (10, 'set set set');",
  );
  const page = await runTable(db, "products", "_search=set&_sort=_rank&_size=1");
  assert.deepEqual(page.rows.map((r) => r.id), [10]);
  assert.equal(page.next, "1");
  const second = await runTable(db, "products", "_search=set&_sort=_rank&_size=1&_next=1");
  assert.deepEqual(second.rows.map((r) => r.id), [7]);
  assert.throws(
    () => buildTableQuery({ table: SHOP_TABLES.products, request: tableRequest("_sort=_rank") }),
    { message: "Cannot sort table by _rank" },
  );
});

Deno.test("_q searches text columns with like when there is no FTS index", async () => {
  const db = openShop();
  const table = { ...SHOP_TABLES.log, text_columns: ["message", "level"] };
  const built = buildTableQuery({ table, request: tableRequest("_q=warn") });
  assert.equal(
    built.sql,
    "select rowid, message, level from log where (message like :q or level like :q) " +
      "order by rowid limit 101",
  );
  const rows = queryRows(db, built);
  assert.deepEqual(rows.map((r) => r.message), ["supplier late"]);
  assert.equal(built.human_description_en, 'where search matches "warn"');
  const withFts = await runTable(db, "products", "_q=trowel");
  assert.deepEqual(withFts.rows.map((r) => r.id), [5]);
});
