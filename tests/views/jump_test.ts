/**
 * `/-/jump?q=` finds what the actor may see and nothing else; `/<db>/-/autocomplete?q=` lists
 * visible tables and columns.
 */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { signedIn } from "./_auth_helpers.ts";

function service(): Service {
  const shop = SHOP_METADATA.databases.shop;
  return new Service({
    files: [buildShopDb()],
    metadata: {
      ...SHOP_METADATA,
      databases: {
        shop: {
          ...shop,
          // Orders are for signed-in staff only; so is one canned query.
          tables: { orders: { allow: { id: "staff" } } },
          queries: { ...shop.queries, staff_report: { sql: "select 1", allow: { id: "staff" } } },
        },
      },
      permissions: { "store-query": { id: ["staff", "alice"] } },
    },
  });
}

type Match = { name: string; type: string; url: string; display_name?: string };

async function jump(svc: Service, q: string, actor?: object): Promise<Match[]> {
  const cookies = actor ? signedIn(svc, actor as never) : {};
  const response = await svc.client.get(`/-/jump?q=${encodeURIComponent(q)}`, { cookies });
  assert.equal(response.status, 200, response.text);
  return (response.json() as { matches: Match[] }).matches;
}

Deno.test("/-/jump finds databases, tables, views and queries, best first", async () => {
  await using svc = service();
  const all = await jump(svc, "");
  assert.deepEqual(all.filter((m) => m.type === "database").map((m) => m.name), ["shop"]);
  const products = await jump(svc, "products");
  // The exact name first, then names that start with it; a canned query by its title too.
  assert.deepEqual(products[0], {
    name: "products",
    url: "/shop/products",
    type: "table",
    description: "shop",
  });
  const byTitle = await jump(svc, "category");
  assert.ok(
    byTitle.some((m) => m.type === "query" && m.display_name === "Products in a category"),
  );
  // Several words must each appear, in order.
  assert.deepEqual((await jump(svc, "ord ite")).map((m) => m.name), ["order_items"]);
});

Deno.test("/-/jump respects permissions: hidden tables, canned and private stored queries", async () => {
  await using svc = service();
  const names = async (actor?: object) => (await jump(svc, "", actor)).map((m) => m.name);
  assert.ok(!(await names()).includes("orders"));
  assert.ok(!(await names()).includes("staff_report"));
  assert.ok((await names({ id: "staff" })).includes("orders"));
  assert.ok((await names({ id: "staff" })).includes("staff_report"));
  const stored = await svc.client.post("/shop/-/queries/store", {
    json: { query: { name: "alices_secret", sql: "select 2", title: "Alice's secret" } },
    cookies: signedIn(svc, { id: "alice" }),
  });
  assert.equal(stored.status, 201, stored.text);
  assert.ok((await names({ id: "alice" })).includes("alices_secret"));
  assert.ok(!(await names({ id: "staff" })).includes("alices_secret"));
  assert.ok(!(await names()).includes("alices_secret"));
});

Deno.test("/<db>/-/autocomplete lists visible tables and columns that match", async () => {
  await using svc = service();
  const body = (await svc.client.get("/shop/-/autocomplete?q=pr")).json() as {
    matches: { type: string; name: string; table?: string }[];
  };
  // The table first, then columns (a view's too) by length: price before product_id.
  assert.deepEqual(body.matches.slice(0, 2), [
    { type: "table", name: "products" },
    { type: "column", name: "price", table: "products" },
  ]);
  assert.ok(body.matches.some((m) => m.name === "product_id" && m.table === "order_items"));
  assert.ok(!body.matches.some((match) => match.name.startsWith("products_fts")), "hidden tables");
  const customer = (await svc.client.get("/shop/-/autocomplete?q=customer")).json() as {
    matches: unknown[];
  };
  assert.deepEqual(customer.matches, [], "orders is hidden from anonymous visitors");
  const staff = (await svc.client.get("/shop/-/autocomplete?q=customer", {
    cookies: signedIn(svc, { id: "staff" }),
  })).json() as { matches: unknown[] };
  assert.deepEqual(staff.matches, [{ type: "column", name: "customer", table: "orders" }]);
});
