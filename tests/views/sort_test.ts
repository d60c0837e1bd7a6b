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
  await using svc = shopService();
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
});

Deno.test("mixed sort: description on the page, one column both ways is a 400", async () => {
  await using svc = shopService();
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
});

Deno.test("the filter form keeps every sort key: one row per key, read back by the redirect", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop/products?_sort=category_id&_sort_desc=price")).text;
  const rows = [...html.matchAll(/<div class="filter-row sort-row">([\s\S]*?)<\/div>/g)]
    .map(([, row]) => [
      row.match(/<select name="([^"]+)">/)?.[1],
      row.match(/<option selected>([^<]+)</)?.[1],
      row.match(/name="(_sort_by_desc[^"]*)"( checked)?/)?.slice(1).join(""),
    ]);
  assert.deepEqual(rows, [
    ["_sort", "category_id", "_sort_by_desc"],
    ["_sort_2", "price", "_sort_by_desc_2 checked"],
  ]);
  const redirect = async (query: string) => {
    const response = await svc.client.get(`/shop/products?${query}`);
    assert.equal(response.status, 302, query);
    return response.headers.get("location");
  };
  // Applying a filter keeps both keys, in order and direction.
  assert.equal(
    await redirect(
      "_filter_column=name&_filter_op=contains&_filter_value=e&_size=2" +
        "&_sort=category_id&_sort_2=price&_sort_by_desc_2=on",
    ),
    "/shop/products?name__contains=e&_size=2&_sort=category_id&_sort_desc=price",
  );
  // Without a filter row (table.js drops empty ones) the sort rows still redirect.
  assert.equal(
    await redirect("_sort=category_id&_sort_2=price&_sort_by_desc_2=on"),
    "/shop/products?_sort=category_id&_sort_desc=price",
  );
  assert.equal(await redirect("_sort=price&_sort_by_desc=on"), "/shop/products?_sort_desc=price");
  // A row set to "none" is dropped; a column chosen twice keeps its first place.
  assert.equal(await redirect("_sort=&_sort_2=price"), "/shop/products?_sort=price");
  assert.equal(
    await redirect("_sort=price&_sort_2=price&_sort_by_desc_2=on&_sort_3=name"),
    "/shop/products?_sort=price&_sort=name",
  );
  const followed = await svc.client.get("/shop/products.json?_sort=category_id&_sort_desc=price");
  assert.equal(followed.status, 200);
});

Deno.test("a column heading sorts by that column alone; the add link keeps the others", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/shop/products?_sort=category_id&_sort_desc=price&_size=2"))
    .text;
  const heading = (column: string) =>
    html.match(new RegExp(`<th class="col-${column}"[^>]*><a href="([^"]+)"[^>]*>(.*?)</a>`))
      ?.slice(1).map((s) => s.replaceAll("&amp;", "&"));
  const addLink = (column: string) =>
    html.match(new RegExp(`<th class="col-${column}"[^>]*data-add-sort-url="([^"]+)"`))?.[1]
      .replaceAll("&amp;", "&");
  assert.deepEqual(heading("name"), ["/shop/products?_size=2&_sort=name", "name"]);
  assert.equal(
    addLink("name"),
    "/shop/products?_size=2&_sort=category_id&_sort_desc=price&_sort=name",
  );
  // The ascending primary key flips to descending; each sorted heading shows its place.
  assert.deepEqual(heading("category_id"), [
    "/shop/products?_size=2&_sort_desc=category_id",
    'category_id&nbsp;<span class="sort-mark" aria-hidden="true">&#9650;<sub class="sort-position">1</sub></span><span class="visually-hidden"> (sorted ascending, key 1 of 2)</span>',
  ]);
  assert.deepEqual(heading("price"), [
    "/shop/products?_size=2&_sort=price",
    'price&nbsp;<span class="sort-mark" aria-hidden="true">&#9660;<sub class="sort-position">2</sub></span><span class="visually-hidden"> (sorted descending, key 2 of 2)</span>',
  ]);
  // Adding a key that is already there flips its direction in place.
  assert.equal(addLink("price"), "/shop/products?_size=2&_sort=category_id&_sort=price");
  assert.match(html, /<th class="col-category_id"[^>]*aria-sort="ascending"/);
  const desc = (await svc.client.get("/shop/products?_sort_desc=price")).text;
  assert.match(desc, /href="\/shop\/products\?_sort=price" rel="nofollow">price&nbsp;/);
  assert.match(desc, /\(sorted descending\)/);
});
