/** Mixed sort directions end to end: JSON pages walked through `next_url`, the HTML and a 400. */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

type Page = { rows: Record<string, unknown>[]; next: string | null; next_url: string | null };

const COMBINATIONS: [string, string][] = [
  ["_sort=category_id&_sort=notes", "category_id, notes"],
  ["_sort=category_id&_sort_desc=notes", "category_id, notes desc"],
  ["_sort_desc=category_id&_sort=notes", "category_id desc, notes"],
  ["_sort_desc=category_id&_sort_desc=notes", "category_id desc, notes desc"],
  ["_sort_desc=notes&_sort=price", "notes desc, price"],
];

Deno.test("walking next_url under mixed sorts returns every row once, in order", async () => {
  const svc = shopService();
  try {
    const all = await svc.client.get(
      `/shop/-/query.json?_shape=array&sql=${encodeURIComponent("select id from products")}`,
    );
    assert.equal((all.json() as unknown[]).length, 9);
    for (const [query, order] of COMBINATIONS) {
      const sql = `select id from products order by ${order}, id`;
      const expected = (await svc.client.get(
        `/shop/-/query.json?_shape=array&sql=${encodeURIComponent(sql)}`,
      )).json().map((row: { id: number }) => row.id);
      const seen: unknown[] = [];
      let url: string | null = `/shop/products.json?${query}&_size=2&_extra=next_url`;
      while (url) {
        const response = await svc.client.get(url.replace("http://localhost", ""));
        assert.equal(response.status, 200, url);
        const page = response.json() as Page;
        seen.push(...page.rows.map((row) => row.id));
        if (page.next_url) {
          // next_url keeps every sort argument, in the order given.
          const sorts = [...new URL(page.next_url).searchParams].filter(([k]) =>
            k.startsWith("_sort")
          );
          assert.deepEqual(sorts, [...new URLSearchParams(query)]);
        }
        url = page.next_url;
      }
      assert.deepEqual(seen, expected, query);
    }
  } finally {
    await svc.close();
  }
});

Deno.test("mixed sort: description on the page, one column both ways is a 400", async () => {
  const svc = shopService();
  try {
    const html = (await svc.client.get("/shop/products?_sort=category_id&_sort_desc=price")).text;
    assert.match(html, /sorted by category_id ascending, price descending/);
    const both = await svc.client.get("/shop/products.json?_sort=price&_sort_desc=price");
    assert.equal(both.status, 400);
    assert.equal(both.json().error, "Cannot use _sort and _sort_desc at the same time");
    const token = async (size: number) =>
      (await svc.client.get(
        `/shop/products.json?_sort=category_id&_sort_desc=notes&_size=${size}`,
      )).json().next;
    // One tilde-encoded value per sort column (`$null` for NULL), then the primary key.
    assert.equal(await token(1), "$null,,3");
    assert.equal(await token(2), "1,Pack+of+two,9");
  } finally {
    await svc.close();
  }
});
