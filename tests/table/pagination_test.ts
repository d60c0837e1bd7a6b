import assert from "node:assert/strict";
import {
  compoundKeysAfterSql,
  nextClause,
  nextToken,
  parsePageSize,
  tokenText,
} from "../../src/table/pagination.ts";
import { buildTableQuery } from "../../src/table/table_sql.ts";
import { pathWithReplacedArgs } from "../../src/table/url_args.ts";
import { example, openShop, requestOf, runTable, SHOP_TABLES, tableRequest } from "./_shop.ts";

const PAGE_EXAMPLES: [string, string][] = [
  ["04-shape-arrays.json", "products"],
  ["10-page-first.json", "products"],
  ["11-page-next.json", "products"],
  ["12-sorted-desc-first.json", "products"],
  ["13-sorted-desc-next.json", "products"],
  ["14-compound-pk-first.json", "order_items"],
  ["15-compound-pk-next.json", "order_items"],
  ["16-view-first.json", "cheap_products"],
  ["17-view-next.json", "cheap_products"],
  ["18-rowid-table.json", "log"],
  ["24-col.json", "products"],
  ["25-nocol.json", "products"],
];

Deno.test("pages, tokens and next links match the examples", async () => {
  const db = openShop();
  for (const [file, table] of PAGE_EXAMPLES) {
    const ex = example(file);
    const { path, args } = requestOf(ex);
    const body = ex.body as { next: string | null; rows: unknown[] };
    const page = await runTable(db, table, args.toString());
    assert.equal(page.next, body.next, file);
    if (!file.startsWith("04")) assert.deepEqual(page.rows, body.rows, file);
    if (page.next) {
      const link = `<http://localhost${
        pathWithReplacedArgs(path, [...args.entries()], page.next_args)
      }>; rel="next"`;
      assert.equal(link, ex.headers.link, file);
    } else {
      assert.equal(ex.headers.link, undefined, file);
    }
  }
});

Deno.test("page SQL orders by the key and fetches one extra row", () => {
  const built = buildTableQuery({
    table: SHOP_TABLES.products,
    request: tableRequest("_sort_desc=price&_size=2&_next=19~2E99,4&name__contains=e"),
  });
  assert.equal(
    built.sql,
    "select id, name, category_id, price, tags, added, notes from products " +
      'where "name" like :p0 and (price < :p2 or price is null or (price = :p2 and ((id > :p1)))) ' +
      "order by price desc, id limit 3",
  );
  assert.deepEqual(built.params, { p0: "%e%", p1: "4", p2: "19.99" });
  assert.equal(built.count_sql, 'select count(*) from products where "name" like :p0');
  assert.deepEqual(built.from_params, { p0: "%e%" });
  assert.equal(built.human_description_en, 'where name contains "e" sorted by price descending');
});

Deno.test("rowid and view queries", () => {
  const log = buildTableQuery({ table: SHOP_TABLES.log, request: tableRequest("_next=2") });
  assert.equal(
    log.sql,
    "select rowid, message, level from log where rowid > :p0 order by rowid limit 101",
  );
  assert.deepEqual(log.primary_keys, ["rowid"]);
  const view = buildTableQuery({
    table: SHOP_TABLES.cheap_products,
    request: tableRequest("_size=2&_next=2"),
  });
  assert.equal(view.sql, "select id, name, price from cheap_products limit 3 offset 2");
  assert.deepEqual(view.primary_keys, []);
});

async function walk(table: string, query: string) {
  const db = openShop();
  const seen: unknown[] = [];
  let next: string | null = null;
  let guard = 0;
  do {
    const args = new URLSearchParams(query);
    if (next) args.set("_next", next);
    const page = await runTable(db, table, args.toString());
    seen.push(...page.rows);
    next = page.next;
  } while (next && ++guard < 50);
  return { db, seen };
}

Deno.test("walking every page of a nullable sort returns each row once, in order", async () => {
  for (const [sort, direction] of [["_sort", "asc"], ["_sort_desc", "desc"]]) {
    for (const column of ["price", "notes", "category_id"]) {
      const { db, seen } = await walk("products", `${sort}=${column}&_size=2`);
      const expected = db.prepare(
        `select * from products order by ${column} ${direction}, id`,
      ).all().map((row) => ({ ...row }));
      assert.deepEqual(seen, expected, `${sort}=${column}`);
    }
  }
});

Deno.test("several sort columns paginate like one compound order", async () => {
  const { db, seen } = await walk("products", "_sort=category_id&_sort=notes&_size=2");
  const expected = db.prepare("select * from products order by category_id, notes, id").all()
    .map((row) => ({ ...row }));
  assert.deepEqual(seen, expected);
  const desc = await walk("products", "_sort_desc=category_id&_sort_desc=added&_size=3");
  const expectedDesc = db.prepare(
    "select * from products order by category_id desc, added desc, id",
  ).all().map((row) => ({ ...row }));
  assert.deepEqual(desc.seen, expectedDesc);
});

Deno.test("compound keys, rowid tables and views walk to the end", async () => {
  assert.equal((await walk("order_items", "_size=4")).seen.length, 6);
  assert.equal((await walk("log", "_size=1")).seen.length, 3);
  assert.equal((await walk("cheap_products", "_size=1")).seen.length, 4);
  assert.equal((await walk("products", "_col=name&_sort=price&_size=2")).seen.length, 9);
});

Deno.test("tokens: $null, tilde encoding and Python float text", () => {
  const shape = {
    pks: ["id"],
    useRowid: false,
    isView: false,
    items: [{ column: "price", desc: true, expression: "price" }],
  };
  const options = { ...shape, pageSize: 2, columnTypes: { price: "REAL" } };
  assert.equal(nextToken({ id: 6, price: 12 }, options), "12~2E0,6");
  assert.equal(nextToken({ id: 3, price: null }, options), "$null,3");
  assert.equal(nextToken({ id: 3, price: { value: 4, label: "x" } }, options), "4~2E0,3");
  assert.equal(tokenText(7, "INTEGER"), "7");
  const nullAsc = nextClause("$null,3", { ...shape, items: [{ ...shape.items[0], desc: false }] });
  assert.equal(nullAsc.clause, "(price is not null or (price is null and ((id > :p0))))");
  assert.equal(nextClause("$null,3", shape).clause, "(price is null and ((id > :p0)))");
  assert.deepEqual(nextClause("A~2F1001,2", { ...shape, pks: ["a", "b"], items: [] }).params, {
    p0: "A/1001",
    p1: "2",
  });
  assert.equal(
    compoundKeysAfterSql(["a", "b", "c"], ["x", "y", "z"]),
    "((a > :x) or (a = :x and b > :y) or (a = :x and b = :y and c > :z))",
  );
  assert.throws(() => nextClause("1,2", { ...shape, items: [] }), /Invalid _next token/);
});

Deno.test("_size parsing and its errors", () => {
  const settings = { max_returned_rows: 1000, default_page_size: 100 };
  const size = (query: string, configSize?: number) =>
    parsePageSize(new URLSearchParams(query), { ...settings, configSize });
  assert.equal(size(""), 100);
  assert.equal(size("_size=0"), 0);
  assert.equal(size("_size=max"), 1000);
  assert.equal(size("", 20), 20);
  assert.equal(size("_size=5", 20), 5);
  assert.throws(() => size("_size=abc"), { message: "_size must be a positive integer" });
  assert.throws(() => size("_size=-1"), { message: "_size must be a positive integer" });
  assert.throws(() => size("_size=1001"), { message: "_size must be <= 1000", status: 400 });
  // The operator's sizes are capped, not refused: no table becomes an error on every request.
  assert.equal(size("", 5000), 1000);
  const small = { max_returned_rows: 10, default_page_size: 100 };
  assert.equal(parsePageSize(new URLSearchParams(""), small), 10);
});

Deno.test("_size=0 returns no rows and no next token", async () => {
  const page = await runTable(openShop(), "products", "_size=0");
  assert.deepEqual(page.rows, []);
  assert.equal(page.next, null);
});
