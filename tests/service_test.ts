import assert from "node:assert/strict";
import { Service } from "../src/service.ts";
import { Database } from "../src/db/database.ts";
import { Request } from "../src/http/request.ts";
import { DatabaseNotFound, RowNotFound, TableNotFound } from "../src/http/errors.ts";
import { BadSignature } from "../src/auth/signer.ts";
import { buildShopDb, shopService } from "./fixtures/shop.ts";

Deno.test("with no files, one in-memory database named _memory is attached", async () => {
  await using svc = new Service();
  assert.deepEqual([...svc.databases.keys()], ["_memory"]);
  const db = svc.get_database();
  assert.equal(db.is_memory, true);
  assert.equal((await db.execute("select 1 + 1")).single_value(), 2);
});

Deno.test("get_database: by name, first by default, KeyError when missing", async () => {
  await using svc = shopService();
  assert.equal(svc.get_database().name, "shop");
  assert.equal(svc.get_database("shop").name, "shop");
  assert.throws(() => svc.get_database("nope"), (e: Error) => e.name === "KeyError");
});

Deno.test("add_database names from the file, de-duplicates, and honours name and route", async () => {
  await using svc = shopService();
  const second = svc.add_database(new Database(svc, { path: buildShopDb() }));
  assert.equal(second.name, "shop_2");
  const routed = svc.add_database(new Database(svc, { path: buildShopDb() }), {
    name: "archive",
    route: "old-shop",
  });
  assert.equal(routed.name, "archive");
  assert.equal(String(svc.urls.database("archive")), "/old-shop");
  const page = await svc.client.get("/old-shop/products.json?_size=1");
  assert.notEqual(page.status, 404);
  svc.remove_database("archive");
  assert.equal(svc.databases.has("archive"), false);
  assert.throws(() => svc.remove_database("archive"), (e: Error) => e.name === "KeyError");
});

Deno.test("add_memory_database serves a shared in-memory database that keeps its data", async () => {
  await using svc = new Service();
  const db = svc.add_memory_database("scratch");
  await db.execute_write("create table notes (body text)");
  await db.execute_write("insert into notes values (?)", ["kept"]);
  assert.equal((await db.execute("select body from notes")).single_value(), "kept");
  const response = await svc.client.get("/.json");
  const names = response.json().databases.map((d: { name: string }) => d.name);
  assert.ok(names.includes("scratch"));
});

Deno.test("sign and unsign round-trip per namespace; tampering raises BadSignature", async () => {
  await using svc = new Service({ secret: "secret" });
  const signed = svc.sign({ a: { id: "root" } }, "actor");
  assert.equal(signed, "eyJhIjp7ImlkIjoicm9vdCJ9fQ.Nyuc5Q7xhxf1VMYzBUosCIdrdW0");
  assert.deepEqual(svc.unsign(signed, "actor"), { a: { id: "root" } });
  assert.throws(() => svc.unsign(signed, "other"), BadSignature);
  assert.throws(() => svc.unsign(signed.slice(0, -2) + "xx", "actor"), BadSignature);
  assert.deepEqual(svc.unsign(svc.sign([1, "two"])), [1, "two"]);
});

Deno.test("absolute_url uses the request's scheme and host, or https when forced", async () => {
  await using plain = new Service();
  await using forced = new Service({ settings: { force_https_urls: true } });
  const request = new Request(new globalThis.Request("http://example.org:8001/x"));
  assert.equal(plain.absolute_url(request, "/db/t"), "http://example.org:8001/db/t");
  assert.equal(forced.absolute_url(request, "/db/t"), "https://example.org:8001/db/t");
});

Deno.test("setting() returns typed values; unknown settings are refused at start", async () => {
  {
    await using svc = new Service({ settings: { default_page_size: "50", allow_facet: "off" } });
    assert.equal(svc.setting("default_page_size"), 50);
    assert.equal(svc.setting("allow_facet"), false);
    assert.equal(svc.setting("base_url"), "/");
  }
  assert.throws(() => new Service({ settings: { no_such_setting: 1 } }), /no_such_setting/);
});

Deno.test("resolve_database / resolve_table / resolve_row and their errors", async () => {
  await using svc = shopService();
  const fake = (url_vars: Record<string, string>) => Request.fake("/x", { url_vars });
  assert.equal(svc.resolve_database(fake({ database: "shop" })).name, "shop");
  assert.throws(() => svc.resolve_database(fake({ database: "nope" })), DatabaseNotFound);
  const table = await svc.resolve_table(fake({ database: "shop", table: "cheap_products" }));
  assert.deepEqual([table.table, table.is_view], ["cheap_products", true]);
  await assert.rejects(
    () => svc.resolve_table(fake({ database: "shop", table: "nope" })),
    TableNotFound,
  );
  const row = await svc.resolve_row(
    fake({ database: "shop", table: "order_items", pks: "A~2F1001,2" }),
  );
  assert.deepEqual(row.pk_values, ["A/1001", "2"]);
  assert.equal(row.row["quantity"], 3);
  const rowid = await svc.resolve_row(fake({ database: "shop", table: "log", pks: "2" }));
  assert.equal(rowid.row["message"], "price change: Hammer");
  await assert.rejects(
    () => svc.resolve_row(fake({ database: "shop", table: "products", pks: "999" })),
    RowNotFound,
  );
});

Deno.test("resolve_table answers once per request, again when url_vars change or it failed", async () => {
  await using svc = shopService();
  const request = Request.fake("/x", { url_vars: { database: "shop", table: "products" } });
  const first = await svc.resolve_table(request);
  assert.equal(await svc.resolve_table(request), first, "the request's answer is kept");
  request.url_vars = { database: "shop", table: "cheap_products" };
  const view = await svc.resolve_table(request);
  assert.deepEqual([view.table, view.is_view], ["cheap_products", true]);
  // A table missing at first, created within the same request, is found when asked again.
  request.url_vars = { database: "shop", table: "later" };
  await assert.rejects(() => svc.resolve_table(request), TableNotFound);
  await svc.get_database("shop").execute_write("create table later (id integer primary key)");
  assert.equal((await svc.resolve_table(request)).table, "later");
  // Another request resolves for itself.
  const other = Request.fake("/x", { url_vars: { database: "shop", table: "products" } });
  assert.notEqual(await svc.resolve_table(other), first);
});

Deno.test("plugin_config reads metadata at the most specific level, null when absent", async () => {
  await using svc = shopService({
    metadata: {
      plugins: { "my-plugin": { level: "instance" } },
      databases: { shop: { plugins: { "my-plugin": { level: "database" } } } },
    },
  });
  assert.deepEqual(svc.plugin_config("my-plugin"), { level: "instance" });
  assert.deepEqual(svc.plugin_config("my-plugin", { database: "shop" }), { level: "database" });
  assert.equal(svc.plugin_config("other-plugin"), null);
});

Deno.test("render_template renders by name, first existing of a list, with csrftoken from a request", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/hello.html`, "Hello {{ name }} <{{ csrftoken() }}>");
  await using svc = new Service({ template_dir: dir });
  assert.match(await svc.render_template("hello.html", { name: "<b>" }), /^Hello &lt;b&gt; <>/);
  const request = Request.fake("/");
  const html = await svc.render_template(["missing.html", "hello.html"], { name: "x" }, request);
  assert.match(html, /^Hello x <[^>]{20,}>/);
  // A template object (compiled by the environment) gets the same context.
  const compiled = svc.templates.env.getTemplate("hello.html");
  assert.match(
    await svc.render_template(compiled, { name: "obj" }, request),
    /^Hello obj <[^>]{20,}>/,
  );
  assert.match(await svc.render_template(compiled, { name: "obj" }), /^Hello obj <>$/);
});

Deno.test("svc.client honours base_url", async () => {
  await using svc = shopService({ settings: { base_url: "/prefix/" } });
  const response = await svc.client.get("/.json");
  assert.equal(response.status, 200);
  assert.equal(response.json().databases[0].path, "/prefix/shop");
  assert.equal((await svc.client.get("/prefix/-/settings.json")).json().base_url, "/prefix/");
  assert.equal(
    String(svc.urls.table("shop", "products", { format: "json" })),
    "/prefix/shop/products.json",
  );
});

Deno.test("actors_from_ids maps ids to {id} without plugins", async () => {
  await using svc = new Service();
  assert.deepEqual(await svc.actors_from_ids(["a", 2]), { a: { id: "a" }, 2: { id: 2 } });
});

Deno.test("the internal database's catalog describes the attached databases", async () => {
  await using svc = shopService();
  await svc.invoke_startup();
  const internal = svc.get_internal_database();
  const tables = await internal.execute(
    "select table_name from catalog_tables where database_name = 'shop' order by table_name",
  );
  assert.ok(tables.rows.map((row) => row[0]).includes("products"));
  svc.add_database(new Database(svc, { path: buildShopDb() }), { name: "second" });
  await svc.refresh_catalog();
  const names = await internal.execute("select database_name from catalog_databases order by 1");
  assert.deepEqual(names.rows.map((row) => row[0]), ["second", "shop"]);
  assert.equal(svc.databases.has("_internal"), false);
  assert.equal((await svc.client.get("/_internal.json")).status, 404);
});

Deno.test("svc.urls: every method with format= under base_url, each URL answering", async () => {
  await using svc = shopService({ settings: { base_url: "/prefix/" } });
  svc.add_database(new Database(svc, { path: buildShopDb() }), {
    name: "archive db",
    route: "old shop",
  });
  const { PrefixedUrl } = await import("../src/http/urls.ts");
  const urls = svc.urls;
  const cases: [unknown, string, number | null][] = [
    [urls.instance(), "/prefix/", 200],
    [urls.instance({ format: "json" }), "/prefix/.json", 200],
    [urls.path("/-/versions"), "/prefix/-/versions", 200],
    [urls.path("-/versions", { format: "json" }), "/prefix/-/versions.json", 200],
    [urls.logout(), "/prefix/-/logout", 200],
    [urls.static("app.css"), "/prefix/-/static/app.css", 200],
    [urls.static_plugins("my-plugin", "x.js"), "/prefix/-/static-plugins/my-plugin/x.js", 404],
    [urls.database("shop"), "/prefix/shop", 200],
    [urls.database("shop", { format: "json" }), "/prefix/shop.json", 200],
    [urls.database("archive db", { format: "json" }), "/prefix/old+shop.json", 200],
    [urls.table("shop", "products"), "/prefix/shop/products", 200],
    [urls.table("shop", "products", { format: "csv" }), "/prefix/shop/products.csv", 200],
    [
      urls.table("archive db", "products", { format: "json" }),
      "/prefix/old+shop/products.json",
      200,
    ],
    [urls.query("shop", "products_by_category"), "/prefix/shop/products_by_category", 200],
    [
      urls.query("shop", "products_by_category", { format: "json" }),
      "/prefix/shop/products_by_category.json",
      200,
    ],
    [urls.row("shop", "products", "1", { format: "json" }), "/prefix/shop/products/1.json", 200],
  ];
  for (const [url, expected, status] of cases) {
    assert.ok(url instanceof PrefixedUrl, expected);
    assert.equal(String(url), expected);
    // A PrefixedUrl is never prefixed twice, by urls.path() or by svc.client.
    assert.equal(String(urls.path(url as InstanceType<typeof PrefixedUrl>)), expected);
    if (status !== null) {
      const response = await svc.client.get(url as InstanceType<typeof PrefixedUrl>);
      assert.equal(response.status, status, expected);
    }
  }
  // Templates see the same builder as `urls`.
  assert.equal(
    await svc.render_template(
      ["nope.html", "show_json.html"],
      { filename: "x", data_json: "{}" },
    ).then((html) => html.includes('href="/prefix/-/static/app.css')),
    true,
  );
});

Deno.test("Service({ config_dir }) keeps the directory in svc.config_dir", async () => {
  await using svc = new Service({ config_dir: "/srv/vitrine" });
  await using plain = new Service();
  assert.equal(svc.config_dir, "/srv/vitrine");
  assert.equal(plain.config_dir, null);
});
