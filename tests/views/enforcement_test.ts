/** Every page and format hides what the actor may not view, and marks what is private. */
import assert from "node:assert/strict";
import { buildShopDb, shopService } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { bearer, signedIn } from "./_auth_helpers.ts";

const ALICE_ONLY = { id: "alice" };
/** orders and order_items visible to alice only; one canned query for alice only. */
const PRIVATE_TABLES = {
  databases: {
    shop: {
      tables: { orders: { allow: ALICE_ONLY }, order_items: { allow: ALICE_ONLY } },
      queries: {
        products_by_category: { sql: "select * from products where category_id = :id" },
        order_report: { sql: "select count(*) from orders", allow: ALICE_ONLY },
      },
    },
  },
};

type Body = Record<string, unknown>;
const names = (list: unknown) => (list as { name: string }[]).map((entry) => entry.name);

Deno.test("a private table answers 403 in every format and route, and 200 to its actor", async () => {
  await using svc = shopService({ secret: "s", metadata: PRIVATE_TABLES });
  const alice = signedIn(svc, { id: "alice" });
  for (const path of ["/shop/orders", "/shop/orders/A~2F1001"]) {
    for (const suffix of ["", ".json", ".csv"]) {
      const url = path + suffix;
      const anonymous = await svc.client.get(url);
      assert.equal(anonymous.status, 403, url);
      assert.equal((await svc.client.get(url, { cookies: alice })).status, 200, url);
    }
  }
  const json = await svc.client.get("/shop/orders.json");
  assert.equal((json.json() as Body).ok, false);
  const html = await svc.client.get("/shop/orders");
  assert.match(html.headers.get("content-type") ?? "", /text\/html/);
  const page = await svc.client.get("/shop/orders", { cookies: alice });
  assert.match(page.text, /🔒/);
  assert.doesNotMatch((await svc.client.get("/shop/products")).text, /🔒/);
});

Deno.test("the index hides private tables, their counts, and marks them for their actor", async () => {
  await using svc = shopService({ secret: "s", metadata: PRIVATE_TABLES });
  const shopOf = (index: { databases: Body[] }) => index.databases.find((d) => d.name === "shop")!;
  const shop = shopOf((await svc.client.get("/.json")).json());
  assert.deepEqual(
    names(shop.tables_and_views_truncated).filter((n) => n.startsWith("order")),
    [],
  );
  const alice = (await svc.client.get("/.json", { cookies: signedIn(svc, { id: "alice" }) }))
    .json() as { databases: Body[] };
  // orders has 3 rows and order_items 6: the sums differ by exactly those.
  assert.equal(
    (shopOf(alice).table_rows_sum as number) - (shop.table_rows_sum as number),
    9,
  );
  assert.equal((shopOf(alice).tables_count as number) - (shop.tables_count as number), 2);
  const items = (shopOf(alice).tables_and_views_truncated as Body[])
    .find((t) => t.name === "order_items");
  assert.equal(items?.private, true);
});

Deno.test("the database page lists no private table, foreign key, column list or query", async () => {
  await using svc = shopService({ secret: "s", metadata: PRIVATE_TABLES });
  const response = await svc.client.get("/shop.json");
  const body = response.json() as Body;
  const text = response.text;
  assert.equal(response.status, 200);
  assert.doesNotMatch(text, /"orders"|order_items|order_report/);
  assert.ok(names(body.tables).includes("products"));
  assert.ok(names(body.queries).includes("products_by_category"));

  const alice = await svc.client.get("/shop.json", { cookies: signedIn(svc, { id: "alice" }) });
  const aliceBody = alice.json() as Body;
  const orders = (aliceBody.tables as Body[]).find((t) => t.name === "orders");
  assert.equal(orders?.private, true);
  assert.ok("orders" in (aliceBody.table_columns as Body));
  const report = (aliceBody.queries as Body[]).find((q) => q.name === "order_report");
  assert.equal(report?.private, true);
  const html = await svc.client.get("/shop", { cookies: signedIn(svc, { id: "alice" }) });
  assert.match(html.text, /order_report[\s\S]*?🔒/);
});

Deno.test("a private canned query is refused to others, as page and as JSON", async () => {
  await using svc = shopService({ secret: "s", metadata: PRIVATE_TABLES });
  assert.equal((await svc.client.get("/shop/order_report.json")).status, 403);
  assert.equal((await svc.client.get("/shop/order_report")).status, 403);
  const alice = await svc.client.get("/shop/order_report.json", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(alice.status, 200);
});

Deno.test("a private database vanishes from the index and /-/databases, with a padlock for its actor", async () => {
  const metadata = { databases: { shop: { allow: ALICE_ONLY } } };
  await using svc = shopService({ secret: "s", metadata });
  const index = (await svc.client.get("/.json")).json() as { databases: Body[] };
  assert.deepEqual(index.databases, []);
  assert.deepEqual((await svc.client.get("/-/databases.json")).json(), { ok: true, databases: [] });
  assert.equal((await svc.client.get("/shop.json")).status, 403);
  assert.equal((await svc.client.get("/shop/products.json")).status, 403);
  assert.equal((await svc.client.get("/shop.json?sql=select+1")).status, 403);

  const alice = signedIn(svc, { id: "alice" });
  const html = await svc.client.get("/", { cookies: alice });
  assert.match(html.text, /href="\/shop">shop<\/a> <span class="private-badge"[^>]*>🔒/);
  const page = await svc.client.get("/shop", { cookies: alice });
  assert.match(page.text, /<h1>[^<]*<span class="private-badge"[^>]*>🔒/);
});

Deno.test("a token restricted to one table gets 403 on another table's JSON", async () => {
  await using svc = shopService({ secret: "s" });
  const token = svc.create_token("bot", {
    restrict_resource: { shop: { products: ["view-table"] } },
  });
  const products = await svc.client.get("/shop/products.json", { headers: bearer(token) });
  assert.equal(products.status, 200);
  const orders = await svc.client.get("/shop/orders.json", { headers: bearer(token) });
  assert.equal(orders.status, 403);
  const row = await svc.client.get("/shop/orders/A~2F1001.json", { headers: bearer(token) });
  assert.equal(row.status, 403);
  const sql = await svc.client.get("/shop.json?sql=select+1", { headers: bearer(token) });
  assert.equal(sql.status, 403);
  const database = (await svc.client.get("/shop.json", { headers: bearer(token) })).json();
  assert.deepEqual(names((database as Body).tables), ["products"]);
});

Deno.test("database downloads need view-database-download as well as the database", async () => {
  const path = buildShopDb();
  {
    await using locked = new Service({
      immutables: [path],
      secret: "s",
      metadata: { databases: { shop: { permissions: { "view-database-download": ALICE_ONLY } } } },
    });
    assert.equal((await locked.client.get("/shop.db")).status, 403);
    const alice = await locked.client.get("/shop.db", {
      cookies: signedIn(locked, { id: "alice" }),
    });
    assert.equal(alice.status, 200);
  }
  await using hidden = new Service({
    immutables: [path],
    secret: "s",
    metadata: { databases: { shop: { allow: ALICE_ONLY } } },
  });
  assert.equal((await hidden.client.get("/shop.db")).status, 403);
});

Deno.test("a locked instance locks its /-/ pages too, except /-/actor", async () => {
  await using svc = shopService({ secret: "s", metadata: { allow: ALICE_ONLY } });
  for (const page of ["versions", "plugins", "settings", "config", "metadata", "databases"]) {
    assert.equal((await svc.client.get(`/-/${page}.json`)).status, 403, page);
  }
  assert.equal((await svc.client.get("/-/actor.json")).status, 200);
  const alice = await svc.client.get("/-/versions.json", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(alice.status, 200);
});

Deno.test("/-/metadata.json leaves out the configuration of hidden tables and queries", async () => {
  await using svc = shopService({ secret: "s", metadata: PRIVATE_TABLES });
  const anonymous = await svc.client.get("/-/metadata.json");
  assert.doesNotMatch(anonymous.text, /orders|order_report/);
  assert.match(anonymous.text, /products_by_category/);
  const alice = await svc.client.get("/-/metadata.json", {
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.match(alice.text, /order_report/);
});

Deno.test("custom pages need view-instance", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.mkdirSync(`${dir}/pages`);
  Deno.writeTextFileSync(`${dir}/pages/about.html`, "<p>About us</p>");
  await using svc = shopService({
    secret: "s",
    template_dir: dir,
    metadata: { allow: ALICE_ONLY },
  });
  assert.equal((await svc.client.get("/about")).status, 403);
  const alice = await svc.client.get("/about", { cookies: signedIn(svc, { id: "alice" }) });
  assert.equal(alice.status, 200);
  assert.match(alice.text, /About us/);
});
