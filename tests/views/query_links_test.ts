/**
 * Links on query results: columns copied from a table link as on the table page (primary key to
 * its row, foreign key to the row it points at) and their headers carry the column's type and
 * description; computed columns stay plain.
 */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";

function service(): Service {
  return new Service({
    files: [buildShopDb()],
    metadata: {
      ...SHOP_METADATA,
      databases: {
        shop: {
          ...SHOP_METADATA.databases.shop,
          tables: {
            products: { columns: { name: "What the shop calls it", price: "In euros" } },
            orders: { allow: { id: "staff" } },
          },
        },
      },
    },
  });
}

const JOIN = `select products.id, products.name as product, products.category_id,
  categories.name as category, price * 2 as doubled
from products join categories on categories.id = products.category_id
where products.id = 1`;

Deno.test("a join's key columns link to rows; headers show type and description", async () => {
  // Needs a library built with column metadata (Debian's is); without it nothing links.
  await using svc = service();
  const html = (await svc.client.get(`/shop/-/query?sql=${encodeURIComponent(JOIN)}`)).text;
  const category = (await svc.client.get("/shop/products/1.json")).json() as {
    rows: { category_id: number }[];
  };
  const categoryId = category.rows[0].category_id;
  assert.match(html, /<td class="col-id type-int"><a href="\/shop\/products\/1">1<\/a><\/td>/);
  assert.match(
    html,
    new RegExp(
      `<td class="col-category_id type-int"><a href="/shop/categories/${categoryId}">${categoryId}</a></td>`,
    ),
  );
  // A name is neither key: plain text; a computed column has no source at all.
  assert.match(html, /<td class="col-product type-str">[^<]+<\/td>/);
  assert.match(html, /<td class="col-doubled type-float">[^<]+<\/td>/);
  assert.match(
    html,
    /<th class="col-product" scope="col" data-column="product" data-source="products.name" data-column-type="text" title="What the shop calls it">product <small class="column-type">TEXT<\/small><br><small class="column-description">What the shop calls it<\/small><\/th>/,
  );
  assert.match(
    html,
    /<th class="col-id" scope="col" data-column="id" data-source="products.id" data-column-type="integer"/,
  );
  assert.match(
    html,
    /<th class="col-doubled" scope="col" data-column="doubled" data-numeric="1">doubled<\/th>/,
  );
});

Deno.test("no link to a table the actor may not see", async () => {
  await using svc = service();
  const sql = "select order_id, product_id from order_items limit 1";
  const html = (await svc.client.get(`/shop/-/query?sql=${encodeURIComponent(sql)}`)).text;
  // order_id points into orders, hidden from anonymous visitors; product_id into products.
  assert.match(html, /<td class="col-order_id type-str">[^<]+<\/td>/);
  assert.match(html, /<td class="col-product_id type-int"><a href="\/shop\/products\/\d+">/);
});
