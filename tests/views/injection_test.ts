/**
 * Injection attempts through every table argument that reaches SQL: awkward column names and
 * hostile values in filters, `_sort`, `_facet*`, `_col`, `_search`, `_label`, `_where` and `_next`
 * either work (names are quoted, values bound) or give a clean 400/403 — never an SQL error 500,
 * never rows of another table.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { buildShopDb, SHOP_METADATA, shopService } from "../fixtures/shop.ts";

const AWKWARD_SQL = `
  create table secret (id integer primary key, token text);
  insert into secret values (1, 'TOPSECRET');
  create table awkward (
    id integer primary key,
    "we""ird" text,
    "semi;colon" integer,
    "brack]et" text,
    "space name" text,
    "_underscore" text,
    "ünï" text,
    "--dash" text,
    "order" text,
    category_id integer references categories(id)
  );
  insert into awkward values
    (1, 'a"b', 1, 'x]y', 'one two', '_u', 'é', '--', 'o1', 1),
    (2, 'it''s', 2, '[z]', 'three', '', 'ü', 'drop', 'o2', 2),
    (3, NULL, 3, NULL, '; select 1', 'x', NULL, NULL, 'o3', NULL);
  create virtual table awkward_fts using fts5("we""ird", content="awkward", content_rowid="id");
  insert into awkward_fts (awkward_fts) values ('rebuild');
`;

/** The shop database plus the awkward and secret tables; `_where` blocked for anonymous users. */
function awkwardService(): Service {
  const path = buildShopDb();
  const conn = Connection.open(path, { mode: "rwc" });
  try {
    conn.exec(AWKWARD_SQL);
  } finally {
    conn.close();
  }
  return new Service({ files: [path], metadata: SHOP_METADATA });
}

const q = encodeURIComponent;

/** Every hostile URL: each must answer 200, 400 or 403 and never leak the secret table. */
const HOSTILE = [
  `${q('we"ird')}__contains=${q('"')}`,
  `${q('"x"]')}__contains=a`,
  `${q('we"ird')}=${q("' or 1=1 --")}`,
  `${q("semi;colon")}__gt=${q("1; drop table secret")}`,
  `${q("semi;colon")}__in=${q('1,2"]')}`,
  `${q("brack]et")}__endswith=${q("]")}`,
  `${q("space name")}__notin=${q('["one two","]"]')}`,
  `_underscore__exact=${q("_u")}`,
  `${q("ünï")}__like=${q("%")}`,
  `${q("--dash")}__isnull=1`,
  `order__not=${q("o1'")}`,
  `${q("secret.token")}__notnull=1`,
  `${q("id) union select token from secret --")}=1`,
  `_sort=${q('we"ird')}`,
  `_sort_desc=${q("brack]et")}&_sort=${q("semi;colon")}`,
  `_sort=${q("token from secret --")}`,
  `_sort=${q('"x"]')}`,
  `_facet=${q('we"ird')}&_facet=${q("brack]et")}&_facet=${q("space name")}`,
  `_facet=${q("nope]")}`,
  `_facet=${q("(select token from secret)")}`,
  `_facet_array=${q("semi;colon")}`,
  `_facet_date=${q("--dash")}`,
  `_col=${q("brack]et")}&_col=${q('we"ird')}`,
  `_col=${q("token from secret --")}`,
  `_nocol=${q("space name")}`,
  `_search=${q('a" OR "b')}`,
  `_search=${q("'; drop table secret; --")}&_searchmode=raw`,
  `_search_${q('we"ird')}=${q("a")}`,
  `_search_${q("nope]")}=${q("a")}`,
  `_q=${q("' or 1=1")}`,
  `_fts_table=secret&_search=x`,
  `_fts_table=${q("awkward_fts where 1=1) --")}&_search=x`,
  `_fts_pk=${q("id) or (1=1")}&_search=x`,
  `_label=${q("semi;colon")}`,
  `_label=category_id&_labels=on`,
  `_next=${q("1) or 1=1 --")}`,
  `_sort=${q("brack]et")}&_next=${q("x~5D,')--")}`,
  `_json=${q('we"ird')}`,
  `_through=${q('{"table":"secret","column":"id","value":"1"}')}`,
  `_where=${q("1=1) union select token, 1, 1, 1, 1, 1, 1, 1, 1, 1 from secret --")}`,
];

Deno.test("hostile names and values are quoted or bound: 200/400, never a 500 or a leak", async () => {
  await using svc = awkwardService();
  for (const query of HOSTILE) {
    for (const format of [".json", "", ".csv"]) {
      const response = await svc.client.get(`/shop/awkward${format}?${query}`);
      const where = `${format} ?${decodeURIComponent(query)}`;
      assert.ok([200, 400, 403].includes(response.status), `${response.status} ${where}`);
      assert.doesNotMatch(response.text, /TOPSECRET/, where);
      // Only SQL the user wrote (`_where`, a raw search) may fail inside SQLite.
      const userSql = /_where|_searchmode=raw/.test(query);
      if (response.status === 400 && format === ".json" && !userSql) {
        const error: string = response.json().error;
        assert.doesNotMatch(error, /syntax error/, where);
        // An unknown operator is refused before any SQL runs, naming the argument.
        if (/^Invalid filter /.test(error)) {
          const named = error.slice("Invalid filter ".length, error.indexOf(": unknown operator"));
          assert.ok(
            decodeURIComponent(query).split("&").some((pair) => pair.startsWith(named)),
            where,
          );
        }
      }
    }
  }
});

Deno.test("awkward columns filter, sort, facet and select correctly", async () => {
  await using svc = awkwardService();
  const ids = async (query: string) =>
    (await svc.client.get(`/shop/awkward.json?_shape=array&${query}`)).json()
      .map((row: { id: number }) => row.id);
  assert.deepEqual(await ids(`${q('we"ird')}=${q('a"b')}`), [1]);
  assert.deepEqual(await ids(`${q('we"ird')}__contains=${q("'")}`), [2]);
  assert.deepEqual(await ids(`${q("brack]et")}__contains=${q("]")}`), [1, 2]);
  assert.deepEqual(await ids(`${q("semi;colon")}__gte=2`), [2, 3]);
  assert.deepEqual(await ids(`${q("space name")}__in=${q("one two,three")}`), [1, 2]);
  assert.deepEqual(await ids(`_underscore__exact=x`), [3]);
  assert.deepEqual(await ids(`${q("ünï")}=${q("ü")}`), [2]);
  assert.deepEqual(await ids(`${q("--dash")}__isnull=1`), [3]);
  assert.deepEqual(await ids(`order__not=o1`), [2, 3]);
  assert.deepEqual(await ids(`_sort_desc=${q("brack]et")}&_size=2`), [1, 2]);
  assert.deepEqual(await ids(`_sort_desc=${q('we"ird')}&_sort=${q("semi;colon")}`), [2, 1, 3]);
  assert.deepEqual(await ids(`_search=${q("it's")}`), [2]);
  assert.deepEqual(await ids(`_search_${q('we"ird')}=${q('a"b')}`), [1]);
  // With a full-text index, `_q` searches it like `_search`.
  assert.deepEqual(await ids(`_q=${q("it's")}`), [2]);

  const facets = (await svc.client.get(
    `/shop/awkward.json?_facet=${q("brack]et")}&_facet=${q("semi;colon")}`,
  )).json().facet_results.results;
  assert.deepEqual(Object.keys(facets), ["brack]et", "semi;colon"]);
  assert.equal(facets["semi;colon"].results.length, 3);

  const columns = (await svc.client.get(
    `/shop/awkward.json?_col=${q("brack]et")}&_col=${q('we"ird')}&_extra=columns`,
  )).json().columns;
  assert.deepEqual(columns, ["id", "brack]et", 'we"ird']);

  // Keyset pagination through awkward sort values walks all rows.
  const seen: number[] = [];
  let url: string | null = `/shop/awkward.json?_sort=${q("brack]et")}&_size=1&_extra=next_url`;
  while (url) {
    const page: { rows: { id: number }[]; next_url: string | null } =
      (await svc.client.get(url.replace("http://localhost", ""))).json();
    seen.push(...page.rows.map((row) => row.id));
    url = page.next_url;
  }
  assert.deepEqual(seen, [3, 2, 1]);
});

Deno.test("unknown names are clean 400s; _where still needs execute-sql", async () => {
  {
    await using svc = awkwardService();
    const error = async (query: string) => {
      const response = await svc.client.get(`/shop/awkward.json?${query}`);
      assert.equal(response.status, 400, query);
      return response.json().error;
    };
    assert.equal(await error(`_sort=${q('"x"]')}`), 'Cannot sort table by "x"]');
    // An operator nothing implements, on a real column: the argument and the operators there are.
    assert.match(
      await error(`${q('we"ird')}__bogus=1`),
      /^Invalid filter we"ird__bogus: unknown operator "bogus" \(use one of exact, not, /,
    );
    assert.match(await error(`_col=${q("token from secret --")}`), /invalid columns/);
    assert.match(await error(`_facet=${q("nope]")}`), /nope\]/);
    assert.equal(await error(`_facet_array=${q("x]")}`), "Invalid facet column: x]");
    assert.equal(await error("_fts_table=secret&_search=x"), "Invalid _fts_table: secret");
    assert.equal(await error(`_fts_pk=${q("id) or (1")}&_search=x`), "Invalid _fts_pk: id) or (1");
    // SQL the user wrote is theirs to fix: SQLite's message, as a 400.
    assert.match(await error(`_where=${q("nope(")}`), /syntax error/);
    assert.match(await error(`_search=${q('"')}&_searchmode=raw`), /unterminated string/);
  }
  await using locked = new Service({
    files: [buildShopDb()],
    metadata: { ...SHOP_METADATA, allow_sql: false },
  });
  const response = await locked.client.get(`/shop/products.json?_where=${q("1=1")}`);
  assert.equal(response.status, 403);
});

Deno.test("a _where clause narrows the other filters and cannot undo them or the paging", async () => {
  await using svc = shopService();
  const ids = async (query: string) =>
    (await svc.client.get(`/shop/products.json?_shape=array&_col=id&${query}`)).json()
      .map((row: { id: number }) => row.id);
  const kitchen = await ids("category_id=1");
  assert.ok(kitchen.length > 0);
  assert.deepEqual(await ids(`category_id=1&_where=${encodeURIComponent("0 or 1")}`), kitchen);
  // A trailing comment ends at the clause's own line: order, limit and next still apply.
  const commented = await svc.client.get(
    `/shop/products.json?_size=2&_where=${encodeURIComponent("1=1 --")}`,
  );
  assert.equal(commented.status, 200);
  assert.equal(commented.json().rows.length, 2);
  const csv = await svc.client.get(
    `/shop/products.csv?_stream=on&_size=2&_where=${encodeURIComponent("1=1 --")}`,
  );
  assert.equal(csv.text.trim().split("\r\n").length, 1 + (await ids("_size=max")).length);
});
