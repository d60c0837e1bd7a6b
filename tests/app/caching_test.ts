/**
 * Caches never change what a page says: the query cache (immutable files by their hash, mutable
 * ones by `data_version`), ETag/304 (immutable files only), views that are not repeatable.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { sqliteConnection } from "../../src/db/engine.ts";

/** Requests and queries answered from either cache (the page cache answers before any query). */
function cacheHits(svc: Service): number {
  return svc.queryCache()!.stats().hits + (svc.pageCache()?.stats().hits ?? 0);
}

const PAGES = [
  "/shop/products",
  "/shop/products?category_id=1&_sort_desc=price",
  "/shop/products.json?_facet=category_id&_extra=count,suggested_facets,facet_results",
  "/shop/products.json?_search=lamp&_extra=count",
  "/shop/products.csv?_labels=on",
  "/shop/products/1.json",
  "/shop/order_items?_facet=product_id",
  // JSON pages keep their rows' JSON text in the cache, per shape and page size.
  "/shop/products.json",
  "/shop/products.json?_shape=arrays&_size=2",
  "/shop/products.json?_shape=array&_size=2",
  "/shop/products.json?_shape=objects&_size=2&_json_infinity=on",
];

for (const kind of ["immutable", "mutable"] as const) {
  Deno.test(`a page served from the query cache is identical to one computed afresh (${kind} file)`, async () => {
    const path = buildShopDb();
    const files = kind === "immutable" ? { immutables: [path] } : { files: [path] };
    await using cached = new Service({ ...files, metadata: SHOP_METADATA });
    await using fresh = new Service({
      ...files,
      metadata: SHOP_METADATA,
      settings: { query_cache_mb: 0, page_cache_mb: 0 },
    });
    // Row pages report how long their query took, and HTML pages carry a fresh CSP nonce: the
    // parts that are not the data.
    const body = (text: string) =>
      text.replace(/"query_ms":[0-9.e-]+/, '"query_ms":0').replace(/nonce="[^"]+"/g, 'nonce=""');
    for (const page of PAGES) {
      const first = await cached.client.get(page);
      const again = await cached.client.get(page);
      const uncached = await fresh.client.get(page);
      assert.equal(first.status, 200, page);
      assert.equal(body(again.text), body(first.text), `${page}: the cached answer`);
      assert.equal(body(uncached.text), body(first.text), `${page}: without a cache`);
    }
    const stats = cached.queryCache()!.stats();
    assert.ok(stats.hits > 0, "the second requests were answered from the cache");
    assert.equal(fresh.queryCache(), null);
  });
}

Deno.test("a write to a mutable database is never hidden by a cache", async () => {
  await using svc = new Service({ files: [buildShopDb()], metadata: SHOP_METADATA });
  const url = "/shop/products.json?_facet=category_id&_extra=count&category_id=1";
  const before = (await svc.client.get(url)).json();
  await svc.client.get(url); // a second time, as a cache would need
  const db = svc.get_database("shop");
  await db.execute_write(
    "insert into products (name, category_id, price) values ('new lamp', 1, 9.5)",
  );
  const after = (await svc.client.get(url)).json();
  assert.equal(after.count, before.count + 1);
  assert.equal(after.rows.length, before.rows.length + 1);
  const facet = (
    body: { facet_results: { results: Record<string, { results: { count: number }[] }> } },
  ) => body.facet_results.results.category_id.results[0].count;
  assert.equal(facet(after), facet(before) + 1);
  // Asked for directly: a cached answer is kept only until the next write.
  const sql = "select count(*) from products";
  const one = (await db.execute(sql, null, { cache: true })).single_value() as number;
  await db.execute_write("delete from products where name = 'new lamp'");
  assert.equal((await db.execute(sql, null, { cache: true })).single_value(), one - 1);
});

Deno.test("a mutable file's pages carry an ETag that every write changes", async () => {
  const path = buildShopDb();
  await using svc = new Service({ files: [path], metadata: SHOP_METADATA });
  await using replica = new Service({ files: [path], metadata: SHOP_METADATA });
  const url = "/shop/products.json?_extra=count";
  const first = await svc.client.get(url);
  const tag = first.headers.get("etag")!;
  assert.ok(tag, "a tag");
  const revalidate = (service: Service, etag: string) =>
    service.client.get(url, { headers: { "if-none-match": etag } });
  assert.equal((await revalidate(svc, tag)).status, 304, "unchanged: 304");
  // Another process (here another service) counts its own versions: its tags never match ours.
  assert.equal((await revalidate(replica, tag)).status, 200);

  await svc.get_database("shop").execute_write(
    "insert into products (name, category_id, price) values ('new lamp', 1, 9.5)",
  );
  const afterOwn = await revalidate(svc, tag);
  assert.equal(afterOwn.status, 200, "after our own write: the new page");
  assert.equal(afterOwn.json().count, first.json().count + 1);
  const tag2 = afterOwn.headers.get("etag")!;
  assert.notEqual(tag2, tag);

  await insertFromAnotherProcess(path, "far lamp");
  const afterOther = await revalidate(svc, tag2);
  assert.equal(afterOther.status, 200, "after another process's write: the new page");
  assert.equal(afterOther.json().count, first.json().count + 2);
});

Deno.test("pages of an immutable database carry an ETag and answer 304 to If-None-Match", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const page = "/shop/products.json?_size=2";
  const first = await svc.client.get(page);
  const tag = first.headers.get("etag");
  assert.match(tag ?? "", /^W\/"[0-9a-f]{32}"$/);
  const revalidated = await svc.client.get(page, { headers: { "if-none-match": tag! } });
  assert.equal(revalidated.status, 304);
  assert.equal(revalidated.text, "");
  assert.equal(revalidated.headers.get("etag"), tag);
  assert.equal(revalidated.headers.get("cache-control"), first.headers.get("cache-control"));
  // A list of tags, or a stale one, behaves as HTTP says.
  const listed = await svc.client.get(page, { headers: { "if-none-match": `"x", ${tag}` } });
  assert.equal(listed.status, 304);
  const stale = await svc.client.get(page, { headers: { "if-none-match": 'W/"0000"' } });
  assert.equal(stale.status, 200);
  assert.equal(stale.text, first.text);
  // Every data page and format has its own tag.
  const tags = new Set<string | null>([tag]);
  for (
    const other of [
      "/shop/products",
      "/shop/products.csv",
      "/shop/products/1",
      "/shop/products.json?_size=3",
    ]
  ) {
    const response = await svc.client.get(other);
    assert.equal(response.status, 200, other);
    tags.add(response.headers.get("etag"));
  }
  assert.equal(tags.size, 5);
  assert.ok(![...tags].includes(null));
  // Another actor (here a signed-in one) gets another tag: its page may differ.
  const cookie = svc.sign({ a: { id: "alice" } }, "actor");
  const alice = await svc.client.get(page, { cookies: { ds_actor: cookie } });
  assert.notEqual(alice.headers.get("etag"), tag);
});

Deno.test("a 304 carries the caching headers of its 200, and no Content-Type", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const cases: [string, Record<string, string>][] = [
    ["/shop/products.json?_size=2", {}],
    ["/shop/products/1.json", {}],
    ["/shop/products", {}],
    ["/shop/products", { accept: "application/json" }],
  ];
  for (const [page, headers] of cases) {
    const first = await svc.client.get(page, { headers });
    const tag = first.headers.get("etag")!;
    const again = await svc.client.get(page, { headers: { ...headers, "if-none-match": tag } });
    const label = `${page} ${JSON.stringify(headers)}`;
    assert.equal(again.status, 304, label);
    for (const name of ["cache-control", "referrer-policy"]) {
      assert.equal(again.headers.get(name), first.headers.get(name), `${label} ${name}`);
    }
    // Every field the 200 varies by (a 304 cannot know whether the body was big enough to
    // compress, so it names Accept-Encoding either way).
    const fields = (response: typeof first) =>
      new Set((response.headers.get("vary") ?? "").split(",").map((f) => f.trim()).filter(Boolean));
    const varied = fields(again);
    for (const field of fields(first)) assert.ok(varied.has(field), `${label} Vary ${field}`);
    assert.equal(again.headers.get("content-type"), null, label);
  }
});

Deno.test("a page chosen by Accept says so in Vary; a .json URL does not vary by it", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const html = await svc.client.get("/shop/products");
  const json = await svc.client.get("/shop/products", { headers: { accept: "application/json" } });
  assert.match(html.headers.get("content-type")!, /^text\/html/);
  assert.match(json.headers.get("content-type")!, /^application\/json/);
  for (const response of [html, json]) {
    assert.match(response.headers.get("vary") ?? "", /(^|, )Accept(,|$)/);
  }
  const suffixed = await svc.client.get("/shop/products.json");
  assert.doesNotMatch(suffixed.headers.get("vary") ?? "", /(^|, )Accept(,|$)/);
  // Quality values count: HTML preferred, or JSON refused, is the HTML page.
  for (const accept of ["text/html, application/json;q=0.1", "application/json;q=0"]) {
    const page = await svc.client.get("/shop/products", { headers: { accept } });
    assert.match(page.headers.get("content-type")!, /^text\/html/, accept);
  }
  for (
    const accept of [
      "APPLICATION/JSON",
      "application/json, text/plain",
      "*/*;q=0.1, application/json",
    ]
  ) {
    const page = await svc.client.get("/shop/products", { headers: { accept } });
    assert.match(page.headers.get("content-type")!, /^application\/json/, accept);
  }
});

Deno.test("pages whose SQL may not be repeatable get no ETag", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  for (
    const page of [
      "/shop/products.json?_where=" + encodeURIComponent("price > random()"),
      "/shop.json?sql=" + encodeURIComponent("select random()"),
      "/shop/-/query.json?sql=" + encodeURIComponent("select 1"),
    ]
  ) {
    const response = await svc.client.get(page);
    assert.equal(response.status, 200, page);
    assert.equal(response.headers.get("etag"), null, page);
  }
  const canned = Object.keys(SHOP_METADATA.databases.shop.queries)[0];
  const response = await svc.client.get(`/shop/${canned}.json`);
  assert.equal(response.headers.get("etag"), null, "a canned query");
});

Deno.test("replicas started alike give the same ETags; other templates, settings or plugins do not", async () => {
  const original = buildShopDb();
  const copy = `${Deno.makeTempDirSync()}/shop.db`;
  Deno.copyFileSync(original, copy);
  const page = "/shop/products.json?_size=2";
  const tagOf = async (svc: Service) => (await svc.client.get(page)).headers.get("etag");
  await using first = new Service({ immutables: [original], metadata: SHOP_METADATA });
  await using second = new Service({ immutables: [copy], metadata: SHOP_METADATA });
  const tag = await tagOf(first);
  assert.ok(tag);
  assert.equal(await tagOf(second), tag);
  // The other replica answers the first one's tag with a 304.
  const revalidated = await second.client.get(page, { headers: { "if-none-match": tag! } });
  assert.equal(revalidated.status, 304);

  const templates = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${templates}/_footer.html`, "<footer>ours</footer>");
  await using themed = new Service({
    immutables: [copy],
    metadata: SHOP_METADATA,
    template_dir: templates,
  });
  await using configured = new Service({
    immutables: [copy],
    metadata: SHOP_METADATA,
    settings: { default_page_size: 50 },
  });
  await using plugged = new Service({ immutables: [copy], metadata: SHOP_METADATA });
  plugged.pm.register({ extra_css_urls: () => ["/x.css"] }, { name: "styles" });
  const others = [await tagOf(themed), await tagOf(configured), await tagOf(plugged)];
  assert.equal(new Set([tag, ...others]).size, 4, others.join(" "));
  // A template edited between two starts changes the tag too.
  Deno.writeTextFileSync(`${templates}/_footer.html`, "<footer>edited</footer>");
  await using edited = new Service({
    immutables: [copy],
    metadata: SHOP_METADATA,
    template_dir: templates,
  });
  assert.notEqual(await tagOf(edited), others[0]);
});

Deno.test("views that call random() or read the clock are neither cached nor tagged; plain views are", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/views.db`;
  const conn = Connection.open(path);
  conn.exec(`
    create table readings (id integer primary key, value real);
    insert into readings (value) values (1.5), (2.5);
    create view lucky as select id, value, random() as draw from readings;
    create view ages as select id, julianday('now') - julianday('2000-01-01') as days from readings;
    create view doubled as select id, value * 2 as twice from readings;
  `);
  conn.close();
  await using svc = new Service({ immutables: [path] });
  const draws = new Set<unknown>();
  for (let i = 0; i < 3; i++) {
    const response = await svc.client.get("/views/lucky.json?_shape=array");
    assert.equal(response.headers.get("etag"), null, "no tag for random()");
    draws.add(response.json()[0].draw);
  }
  assert.equal(draws.size, 3, "random() is called afresh for every page");
  const ages = await svc.client.get("/views/ages.json");
  assert.equal(ages.headers.get("etag"), null, "no tag for a view that reads the clock");
  const hitsBefore = cacheHits(svc);
  await svc.client.get("/views/ages.json");
  assert.equal(cacheHits(svc), hitsBefore, "its rows are not cached");
  const doubled = await svc.client.get("/views/doubled.json");
  assert.ok(doubled.headers.get("etag"), "a plain view has a tag");
  await svc.client.get("/views/doubled.json");
  assert.ok(cacheHits(svc) > hitsBefore, "and its rows are cached");
  Deno.removeSync(dir, { recursive: true });
});

/** Inserts a product through a connection of another process (the binding, in a child Deno). */
async function insertFromAnotherProcess(path: string, name: string): Promise<void> {
  const module = new URL("../../src/sqlite/connection.ts", import.meta.url).href;
  const script = `
    import { Connection } from "${module}";
    const conn = Connection.open(${JSON.stringify(path)});
    conn.exec("pragma busy_timeout = 5000");
    conn.run("insert into products (name, category_id, price) values (?, 1, 1)", [${
    JSON.stringify(name)
  }]);
    conn.close();
  `;
  const output = await new Deno.Command(Deno.execPath(), { args: ["eval", script] }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
}

for (const journal of ["delete", "wal"]) {
  Deno.test(`a mutable file's cached pages follow writes from other connections and processes (${journal})`, async () => {
    const path = buildShopDb();
    const setup = Connection.open(path);
    setup.exec(`pragma journal_mode = ${journal}`);
    setup.close();
    await using svc = new Service({ files: [path], metadata: SHOP_METADATA });
    const url = "/shop/products.json?_facet=category_id&_extra=count&category_id=1";
    const count = async () => (await svc.client.get(url)).json().count as number;
    const start = await count();
    const hits = cacheHits(svc);
    assert.equal(await count(), start);
    assert.ok(cacheHits(svc) > hits, "unchanged: answered from a cache");

    const other = Connection.open(path);
    other.run("insert into products (name, category_id, price) values ('other lamp', 1, 2)");
    assert.equal(await count(), start + 1, "a write by another connection of this process");
    other.close();

    await insertFromAnotherProcess(path, "far lamp");
    assert.equal(await count(), start + 2, "a write by another process");

    await svc.get_database("shop").execute_write("delete from products where name like '%lamp'");
    const left = (await svc.client.get(`${url}&name__contains=lamp`)).json();
    assert.equal(left.count, 0, "our own write");
  });
}

Deno.test("an execute_fn function that leaves a transaction open does not freeze cached pages", async () => {
  const path = buildShopDb();
  // WAL: the write may commit while the main read connection holds its snapshot.
  const setup = Connection.open(path);
  setup.exec("pragma journal_mode = wal");
  setup.close();
  await using svc = new Service({ files: [path], metadata: SHOP_METADATA });
  const db = svc.get_database("shop");
  const url = "/shop/products.json?_extra=count";
  const start = (await svc.client.get(url)).json().count as number;
  // A read transaction held open on the main read connection sees one snapshot only.
  await db.execute_fn((engineConn) => {
    const conn = sqliteConnection(engineConn);
    conn.exec("begin");
    conn.query("select count(*) from products");
  });
  await db.execute_write("insert into products (name, category_id, price) values ('n', 1, 1)");
  assert.equal((await svc.client.get(url)).json().count, start + 1);
  await db.execute_fn((conn) => sqliteConnection(conn).exec("commit"));
});
