/**
 * The differential test of issue 43: the conformance fixtures (the examples' shop, the
 * reference-shaped `fixtures`) and the demo, served once from SQLite files and once from
 * PostgreSQL databases holding the same rows (tests/fixtures/sqlite_to_postgres.ts), must answer
 * every URL of {@link URLS} with the same JSON (or CSV, TSV, NDJSON).
 *
 * What differs by design is taken out of both answers before comparing, each in one place below
 * ({@link normalise}) and in docs/postgres.md, "Where answers differ by design":
 *
 * - `rowid`: a PostgreSQL table without a primary key has none. Its rows lack the `rowid` column,
 *   its `primary_keys` are empty and its pages continue by offset; so the `rowid` column, the
 *   `primary_keys` and the `next` tokens of keyless tables are left out of the comparison.
 * - SQL text (`query.sql`, table and view definitions): each engine's own.
 * - Column types (`_extra=columns`' types, `sqlite_type`): each engine's own names.
 * - Files: `path`, `size`, `hash`, `file_size` and `is_mutable` of a database have no meaning
 *   for a server.
 * - Hidden tables: SQLite's FTS shadow tables do not exist in PostgreSQL.
 * - Search: PostgreSQL searches `to_tsvector` over the columns the FTS table indexed
 *   (`search_columns`, set in the PostgreSQL side's metadata), not an FTS table, so `fts_table`
 *   is left out.
 * - Listing counts: the index and database pages count tables within one shared time budget, so
 *   which tables get a count depends on the engine's speed (see {@link listingWithoutCounts}).
 * - `display_columns`: type names, and `notnull` of primary keys (NOT NULL by definition in
 *   PostgreSQL).
 * - Custom SQL's `next` tokens: by key in SQLite when the ORDER BY ends on a unique key, by
 *   offset elsewhere.
 * - Ties in a canned query's own ORDER BY ({@link TIES}): the engines break them differently.
 *
 * Both services run with generous time limits ({@link SETTINGS}), and the PostgreSQL cluster uses
 * the `C.UTF-8` collation, which sorts text by code point as SQLite does. {@link DIFFERENT} lists
 * answers that differ on purpose, and checks they differ as docs/postgres.md says.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, startCluster } from "../fixtures/pg_cluster.ts";
import { buildReferenceDb } from "../fixtures/reference.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { sqliteToPostgres } from "../fixtures/sqlite_to_postgres.ts";
import { parse_metadata } from "../../src/config/metadata.ts";

const HAVE_PG = pgAvailable("PostgreSQL differential test");

/** Tables whose rows have no key but SQLite's rowid (see the module comment). */
const KEYLESS = new Set(["no_primary_key", "123_starts_with_digits", "binary_data", "log"]);

/** `/db/table.json?query` for each query. */
const table = (path: string, queries: string[]) =>
  queries.map((query) => `${path}.json${query ? `?${query}` : ""}`);

/** Filters: every operator, on the columns where it means something. */
const FILTERS = [
  "id=3",
  "name=Trowel",
  "name__exact=Trowel",
  "name__not=Trowel",
  "price__not=12",
  "name__contains=er",
  "name__contains=KNIFE",
  "notes__notcontains=wash",
  "name__endswith=set",
  "name__startswith=w",
  "price__gt=9",
  "price__gt=9.5",
  "price__gte=9",
  "price__lt=10",
  "price__lte=9",
  "id__gt=4",
  "name__like=%25o%25",
  "name__like=T_owel",
  "name__notlike=%25o%25",
  "name__glob=*o*",
  "name__glob=T*",
  "name__glob=[CH]*",
  "id__in=1,5,9",
  "id__in=[1,5,9]",
  "name__in=Trowel,Hammer",
  "id__notin=1,5,9",
  "tags__arraycontains=steel",
  "tags__arraycontains=sale",
  "tags__arraynotcontains=steel",
  "added__date=2024-03-10",
  "added__date=2024-01-15",
  "price__isnull=1",
  "category_id__isnull=1",
  "notes__notnull=1",
  "notes__isblank=1",
  "notes__notblank=1",
  "price__gt=5&category_id=2",
  "name__contains=o&_sort_desc=price",
  "category_id__not=1&tags__arraycontains=outdoor",
];

/** Every URL both engines must answer alike; `walk:` ones are followed through their pages. */
export const URLS: string[] = [
  // Index and databases.
  "/.json",
  "/-/databases.json",
  "/shop.json",
  "/fixtures.json",
  "/demo.json",
  // The shop's products: the default page, shapes, sizes and extras.
  ...table("/shop/products", [
    "",
    "_shape=arrays",
    "_shape=array",
    "_shape=object",
    "_shape=objects",
    "_shape=array&_nl=on",
    "_size=2",
    "_size=0",
    "_size=max",
    "_col=name",
    "_col=price&_col=name",
    "_nocol=tags",
    "_nocol=tags&_nocol=notes",
    "_extra=count",
    "_extra=count,next_url,columns,primary_keys,human_description_en",
    "_extra=facet_results,suggested_facets",
    "category_id=1&_extra=count,next_url,columns,primary_keys,human_description_en," +
    "facet_results,suggested_facets",
    "_extra=expandable_columns",
    "_extra=foreign_key_tables",
    "_extra=display_columns",
    "_extra=query",
    "_extra=private",
    "_extra=is_view",
    "_extra=table",
    "_extra=database",
    "_extra=count_truncated",
    "_labels=on",
    "_labels=on&_size=3",
    "_label=category_id",
    "_labels=on&_col=category_id",
  ]),
  ...table("/shop/products", FILTERS),
  // Sorts: every column both ways, several keys, and with filters.
  ...["id", "name", "category_id", "price", "tags", "added", "notes"].flatMap((column) =>
    table("/shop/products", [`_sort=${column}`, `_sort_desc=${column}`])
  ),
  ...table("/shop/products", [
    "_sort=category_id&_sort_desc=price",
    "_sort_desc=category_id&_sort=name",
    "_sort=added&_sort=name",
    "_sort=notes&_sort_desc=id",
    "_sort=price&price__gt=5",
  ]),
  // Keyset pages followed to the end.
  ...[
    "_size=2",
    "_size=3&_sort=price",
    "_size=2&_sort_desc=price",
    "_size=2&_sort=notes",
    "_size=2&_sort_desc=notes",
    "_size=2&_sort=category_id&_sort_desc=price",
    "_size=2&_sort=added&_sort=name",
    "_size=2&tags__arraycontains=steel",
    "_size=3&_col=name&_sort=price",
  ].map((query) => `walk:/shop/products.json?${query}`),
  "walk:/shop/order_items.json?_size=2",
  "walk:/shop/order_items.json?_size=2&_sort_desc=quantity",
  "walk:/shop/orders.json?_size=1",
  "walk:/shop/cheap_products.json?_size=2",
  "walk:/fixtures/compound_primary_key.json?_size=1",
  "walk:/fixtures/facetable.json?_size=4",
  "walk:/fixtures/facetable.json?_size=3&_sort=state",
  "walk:/fixtures/facetable.json?_size=5&_sort_desc=created&_sort=_neighborhood",
  "walk:/demo/trees.json?_size=50&_sort=height_m",
  "walk:/demo/trees.json?_size=100",
  "walk:/demo/inspections.json?_size=200",
  // Facets: column, array and date facets, sizes, labels, with filters.
  ...table("/shop/products", [
    "_facet=category_id",
    "_facet=price",
    "_facet=added",
    "_facet=notes",
    "_facet_array=tags",
    "_facet_date=added",
    "_facet=category_id&_facet_array=tags&_facet_date=added",
    "_facet=category_id&_facet_size=2",
    "_facet_array=tags&_facet_size=3",
    "_facet_array=tags&tags__arraycontains=steel",
    "_facet_date=added&added__date=2024-03-10",
    "_facet=category_id&category_id=2",
    "_facet=category_id&_labels=on",
  ]),
  ...table("/fixtures/facetable", [
    "",
    "_facet=state",
    "_facet=_city_id",
    "_facet=planet_int&_facet=on_earth",
    "_facet=state&_facet=_city_id&_facet_size=2",
    "_facet_date=created",
    "_facet_array=tags",
    "_facet=state&_facet_date=created&_facet_array=tags",
    "_facet=_neighborhood&_facet_size=max",
    "_city_id=1&_facet=state",
    "state=MI&_facet=_city_id",
    "created__date=2019-01-16",
    "_labels=on",
    "_labels=on&_size=5",
    "_sort=_city_id&_size=4",
    "_where=state%3D%27CA%27",
  ]),
  ...table("/demo/trees", [
    "",
    "_facet=species_id",
    "_facet=condition&_facet=neighborhood_id",
    "_facet_array=tags",
    "_facet_date=planted",
    "_sort_desc=height_m&_size=10",
    "_sort=planted&_size=10",
    "condition=good&_size=5",
    "height_m__gt=25",
    "tags__arraycontains=shade&_size=5",
    "_labels=on&_size=5",
    "_col=address&_col=height_m&_size=5",
  ]),
  // Search: FTS5 in SQLite, to_tsvector over the same columns in PostgreSQL.
  ...table("/shop/products", [
    "_search=garden",
    "_search=Garden",
    "_search=garden hose",
    "_search=knife",
    "_search=nothing matches",
    "_search_name=trowel",
    "_search=steel&_searchmode=raw",
    "_search=box&_sort=_rank",
    "_q=knife",
  ]),
  ...table("/demo/trees", ["_search=oak&_size=5", "_q=street&_size=5"]),
  // Other tables and views of the shop.
  ...table("/shop/categories", ["", "_sort_desc=name", "id__in=1,3"]),
  ...table("/shop/orders", ["", "placed__date=2024-05-02", "id=A/1001"]),
  ...table("/shop/order_items", ["", "_labels=on", "order_id=A/1001", "_sort=quantity"]),
  ...table("/shop/log", ["", "level=info", "_sort=message", "_shape=objects"]),
  ...table("/shop/cheap_products", ["", "_sort=name", "price__lt=5", "_size=2"]),
  // The reference-shaped fixtures: odd names, keys, blobs, labels.
  ...table("/fixtures/simple_primary_key", ["", "content=hello", "content__isblank=1"]),
  ...table("/fixtures/compound_primary_key", ["", "pk1=a"]),
  ...table("/fixtures/no_primary_key", ["", "a=a2"]),
  ...table("/fixtures/table~2Fwith~2Fslashes~2Ecsv", [""]),
  ...table("/fixtures/table%20with%20spaces", ["", "_sort=name%20with%20spaces"]),
  ...table("/fixtures/t%C3%A1bla-%C3%BCnicode", [""]),
  ...table("/fixtures/foreign_key_references", ["", "_labels=on", "_label=foreign_key_with_label"]),
  ...table("/fixtures/simple_view", ["", "_sort_desc=content"]),
  ...table("/fixtures/facet_cities", ["", "_sort=name"]),
  // Rows.
  "/shop/products/1.json",
  "/shop/products/3.json",
  "/shop/products/1.json?_extra=foreign_key_tables",
  "/shop/categories/2.json?_extra=foreign_key_tables",
  "/shop/order_items/A~2F1001,2.json",
  "/shop/orders/A~2F1002.json",
  "/fixtures/compound_primary_key/a,b.json",
  "/fixtures/compound_primary_key/a~2Fb,~2Ec-d.json",
  "/fixtures/simple_primary_key/1.json?_extra=foreign_key_tables",
  "/fixtures/table~2Fwith~2Fslashes~2Ecsv/3.json",
  "/fixtures/facetable/1.json",
  "/fixtures/facet_cities/1.json?_extra=foreign_key_tables",
  "/demo/trees/1.json",
  "/demo/species/1.json?_extra=foreign_key_tables",
  // Custom SQL and canned queries.
  "/shop/-/query.json?sql=select+id,+name,+price+from+products+where+price+%3E+:min_price" +
  "+order+by+price&min_price=10",
  "/shop/-/query.json?sql=select+name+from+products+where+name+like+:q+order+by+name&q=%25o%25",
  "/shop/-/query.json?sql=select+category_id,+count(*)+as+n+from+products+where+category_id" +
  "+is+not+null+group+by+category_id+order+by+category_id",
  "/shop/-/query.json?sql=select+*+from+products+order+by+id&_shape=array",
  "/shop/-/query.json?sql=select+*+from+order_items+order+by+order_id,+product_id&_shape=objects",
  "/shop/-/query.json?sql=select+upper(name)+as+u,+length(name)+as+l+from+categories+order+by+id",
  "/shop/products_by_category.json?category=Garden",
  "/shop/products_by_category.json?category=Kitchen&_shape=array",
  "/demo/trees_by_species.json?species=Red+maple",
  // Custom SQL past max_returned_rows: pages by offset (or key) with a count of all rows.
  "walk:/demo/-/query.json?sql=select+id,+address+from+trees+order+by+id",
  "walk:/demo/-/query.json?sql=select+address,+height_m+from+trees",
  "walk:/demo/-/query.json?sql=select+tree_id,+inspected+from+inspections+order+by+inspected" +
  ",+tree_id&_extra=count",
  "/demo/-/query.csv?sql=select+id,+address+from+trees+order+by+id&_stream=on",
  "/demo/-/query.json?sql=select+id+from+trees&_next=1400",
  // Exports.
  "/shop/products.csv",
  "/shop/products.csv?_dl=on",
  "/shop/products.csv?_labels=on",
  "/shop/products.csv?_sort_desc=price&_size=3",
  "/shop/products.csv?_stream=on&_size=2",
  "/shop/products.tsv",
  "/shop/products.ndjson",
  "/shop/products.ndjson?_sort=name",
  "/shop/order_items.csv?_labels=on",
  "/shop/cheap_products.csv",
  "/shop/-/query.csv?sql=select+id,+name+from+products+order+by+id",
  "/fixtures/facetable.csv?_stream=on&_size=4",
  "/fixtures/facetable.ndjson",
  "/demo/trees.csv?_stream=on&_size=100",
  "/demo/inspections.csv?_stream=on",
  // Errors.
  "/shop/nope.json",
  "/nope.json",
  "/shop/products/999.json",
  "/shop/products.json?_sort=nope",
  "/shop/products.json?_size=-1",
  "/shop/products.json?_facet=nope",
  "/shop/-/query.json?sql=update+products+set+name%3D1",
];

/** URLs answered differently on purpose: `[url, SQLite's status, PostgreSQL's status]`. */
const DIFFERENT: [string, number, number][] = [
  // A table without a primary key has no row pages in PostgreSQL (no stable rowid).
  ["/shop/log/2.json", 200, 404],
  // A `_next` key that is no value of the key column's type: SQLite compares it anyway (text
  // sorts after numbers: an empty page), PostgreSQL refuses the value.
  ["/shop/products.json?_next=nonsense", 200, 400],
];

/** Keys whose values are each engine's own, removed wherever they appear. */
const ENGINE_KEYS = new Set([
  "sql",
  "table_definition",
  "view_definition",
  "path",
  "size",
  "hash",
  "file_size",
  "is_mutable",
  "fts_table",
  "sqlite_type",
  "hidden_count",
  "hidden_tables_count",
  "query_ms",
]);

/**
 * URLs whose rows come in an order the engines may break ties in differently (a canned query
 * whose ORDER BY is not total): their rows are compared as sorted lists.
 */
const TIES = new Set(["/demo/trees_by_species.json?species=Red+maple"]);

/** One answer with what differs by design taken out (see the module comment). */
export function normalise(url: string, value: unknown): unknown {
  const keyless = [...KEYLESS].some((table) => url.includes(`/${encodeURIComponent(table)}`));
  const customSql = url.includes("/-/query");
  const walk = (node: unknown, key = ""): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, key));
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (ENGINE_KEYS.has(k) && (v === null || typeof v !== "object")) continue;
      if (k === "hidden" && v === true) return undefined;
      if (keyless && (k === "rowid" || k === "next" || k === "next_url" || k === "primary_keys")) {
        continue;
      }
      // Custom SQL whose ORDER BY ends on a unique key pages by key in SQLite (`k…` tokens),
      // by offset elsewhere: whether there is a next page is compared, and the pages themselves.
      if (customSql && (k === "next" || k === "next_url")) {
        out[k] = v !== null;
        continue;
      }
      // …so where SQLite pages by key, PostgreSQL adds its total order (`order_added`).
      if (customSql && k === "order_added") continue;
      // A column's declared type is each engine's own name for it, and a primary key column
      // is NOT NULL in PostgreSQL by definition, where SQLite reports what was declared.
      if (key === "display_columns" && (k === "type" || k === "notnull")) continue;
      out[k] = walk(v, k);
    }
    return out;
  };
  let result = walk(value);
  // SQLite's FTS shadow tables are hidden tables PostgreSQL does not have.
  if (result && typeof result === "object" && !Array.isArray(result)) {
    const body = result as Record<string, unknown>;
    if (Array.isArray(body.tables)) body.tables = body.tables.filter((t) => t !== undefined);
    const hidden = hiddenNames(value);
    if (body.table_columns && typeof body.table_columns === "object") {
      for (const name of hidden) delete (body.table_columns as Record<string, unknown>)[name];
    }
  }
  if (keyless && result && typeof result === "object" && !Array.isArray(result)) {
    const body = result as Record<string, unknown>;
    const at = Array.isArray(body.columns) ? body.columns.indexOf("rowid") : -1;
    if (at >= 0) {
      body.columns = (body.columns as string[]).filter((c) => c !== "rowid");
      if (Array.isArray(body.rows)) {
        body.rows = body.rows.map((row) =>
          Array.isArray(row) ? row.filter((_, i) => i !== at) : row
        );
      }
    }
  }
  if (Array.isArray(result)) result = result.filter((item) => item !== undefined);
  if (url === "/.json" || /^\/\w+\.json$/.test(url)) listingWithoutCounts(url, result);
  if (TIES.has(url) && Array.isArray((result as { rows?: unknown })?.rows)) {
    const body = result as { rows: unknown[] };
    body.rows = body.rows.map((row) => JSON.stringify(row)).sort();
  }
  return result;
}

/** The demo's SQLite file, built by demo/build.ts, and its metadata. */
function buildDemo(): { path: string; metadata: Record<string, unknown> } {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-demo-" });
  const path = `${dir}/demo.db`;
  const build = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      new URL("../../demo/build.ts", import.meta.url).pathname,
      path,
    ],
    stdout: "null",
  }).outputSync();
  if (build.code !== 0) throw new Error(new TextDecoder().decode(build.stderr));
  const metadata = parse_metadata(
    Deno.readTextFileSync(new URL("../../demo/metadata.yaml", import.meta.url)),
  ) as Record<string, unknown>;
  return { path, metadata };
}

/** JSON, or newline-delimited JSON (`_nl=on`) as a list; the text itself when neither. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    } catch {
      return text;
    }
  }
}

/** A page's answer, normalised, and the path of its next page (for `walk:` URLs). */
interface Answer {
  status: number;
  body: unknown;
  next: string | null;
  text: string;
}

async function answer(svc: Service, url: string): Promise<Answer> {
  const response = await svc.client.get(url);
  const text = response.text;
  const json = /\.json(\?|$)/.test(url);
  const body = (json ? parseJson(text) : null) as { next_url?: unknown } | null;
  const nextUrl = typeof body?.next_url === "string" ? new URL(body.next_url) : null;
  const next = nextUrl ? nextUrl.pathname + nextUrl.search : null;
  return { status: response.status, body: json ? normalise(url, body) : text, next, text };
}

/** Compares one URL (following `walk:` URLs page by page); the differences found. */
async function compare(sqlite: Service, pg: Service, entry: string): Promise<string[]> {
  const walk = entry.startsWith("walk:");
  let [left, right]: (string | null)[] = walk ? [entry.slice(5), entry.slice(5)] : [entry, entry];
  for (let page = 0; left && right && page < 200; page++) {
    const [a, b]: Answer[] = await Promise.all([answer(sqlite, left), answer(pg, right)]);
    const at = page ? `${entry} (page ${page + 1})` : entry;
    if (a.status !== b.status) {
      return [`${at}: status ${a.status} vs ${b.status}: ${b.text.slice(0, 300)}`];
    }
    try {
      assert.deepEqual(b.body, a.body);
    } catch (error) {
      return [`${at}:\n${(error as Error).message.slice(0, 2500)}`];
    }
    if (!walk) return [];
    if (Boolean(a.next) !== Boolean(b.next)) return [`${at}: next ${a.next} vs ${b.next}`];
    [left, right] = [a.next, b.next];
  }
  return [];
}

/**
 * Time limits far above what the queries need, on both sides: the test compares answers, and a
 * facet suggestion that runs out of time on a busy machine (a round trip to a server costs more
 * than a call into SQLite) would be a difference of speed.
 */
const SETTINGS = {
  sql_time_limit_ms: 10_000,
  facet_time_limit_ms: 5_000,
  facet_suggest_time_limit_ms: 5_000,
};

/**
 * The index and database pages count tables within a shared time budget (100 ms for a page) and
 * the index lists the biggest first: how many get counted depends on the engine's speed (each
 * count is a round trip to a server), so those listing counts, and the order they give, are left
 * out. A table page's own count is compared.
 */
function listingWithoutCounts(url: string, page: unknown): void {
  const body = page as Record<string, unknown>;
  const listings = url === "/.json"
    ? (body.databases as Record<string, unknown>[]).map((db) => {
      // The five biggest tables: which five depends on which were counted.
      delete db.table_rows_sum;
      delete db.hidden_table_rows_sum;
      delete db.show_table_row_counts;
      delete db.tables_and_views_truncated;
      return [];
    })
    : [body.tables as Record<string, unknown>[]];
  for (const tables of listings) {
    if (!Array.isArray(tables)) continue;
    for (const table of tables) delete table.count;
    tables.sort((a, b) => String(a.name).localeCompare(String(b.name)));
  }
}

/** Names of the hidden tables listed in an answer's `tables`. */
function hiddenNames(value: unknown): string[] {
  const tables = (value as { tables?: unknown })?.tables;
  if (!Array.isArray(tables)) return [];
  return tables.filter((t) => t?.hidden === true).map((t) => String(t.name));
}

Deno.test({
  name: "PostgreSQL answers every URL of the list as SQLite does",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startCluster();
    const demo = buildDemo();
    const files = { fixtures: buildReferenceDb(), shop: buildShopDb(), demo: demo.path };
    const metadata = structuredClone(SHOP_METADATA);
    metadata.databases.demo = (demo.metadata.databases as Record<string, unknown>).demo;
    const pgMetadata = structuredClone(metadata);
    try {
      for (const [name, path] of Object.entries(files)) {
        const copy = sqliteToPostgres(path);
        await cluster.psql(`create database ${name}`);
        await cluster.psql(copy.tables, name);
        for (const view of copy.views) await cluster.psql(view.sql, name);
        for (const [table, columns] of Object.entries(copy.search)) {
          pgMetadata.databases ??= {};
          pgMetadata.databases[name] ??= {};
          pgMetadata.databases[name].tables ??= {};
          pgMetadata.databases[name].tables[table] ??= {};
          pgMetadata.databases[name].tables[table].search_columns = columns;
        }
      }
      const sqlite = new Service({ files: Object.values(files), metadata, settings: SETTINGS });
      const pg = new Service({
        postgres: Object.keys(files).map((name) => `${name}=${cluster.url(name)}`),
        metadata: pgMetadata,
        settings: SETTINGS,
      });
      try {
        await sqlite.invoke_startup();
        await pg.invoke_startup();
        // The first requests open the pool's connections; the index's counts share one budget.
        for (const name of Object.keys(files)) await pg.client.get(`/${name}.json`);
        assert.ok(URLS.length >= 150, `${URLS.length} URLs`);
        const failures: string[] = [];
        for (const url of URLS) failures.push(...await compare(sqlite, pg, url));
        for (const [url, left, right] of DIFFERENT) {
          const [a, b] = await Promise.all([sqlite.client.get(url), pg.client.get(url)]);
          if (a.status !== left || b.status !== right) {
            failures.push(`${url}: expected ${left} vs ${right}, got ${a.status} vs ${b.status}`);
          }
        }
        assert.deepEqual(failures, [], `${failures.length} of ${URLS.length} URLs differ`);
      } finally {
        await sqlite.close?.();
        await pg.close?.();
      }
    } finally {
      await cluster.stop();
    }
  },
});
