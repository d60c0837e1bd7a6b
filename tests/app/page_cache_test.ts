/**
 * The page cache (`page_cache_mb`): finished JSON pages of database files kept by ETag,
 * sent again without running their view — and never to a request the page was not made for.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { compressResponse } from "../../src/app/compression.ts";
import { Request } from "../../src/http/request.ts";
import { Service } from "../../src/service.ts";
import { PageCache } from "../../src/app/page_cache.ts";
import { Response } from "../../src/http/response.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { signedIn } from "../views/_auth_helpers.ts";

const hits = (svc: Service) => svc.pageCache()!.stats().hits;

/** A page is kept the second time it is asked for: `key` missed twice, as two requests would. */
function askedTwice(cache: PageCache, key: string): void {
  cache.get(key);
  cache.get(key);
}

Deno.test("a kept page is sent again byte for byte, headers too, without running its view", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  await using fresh = new Service({
    immutables: [buildShopDb()],
    metadata: SHOP_METADATA,
    settings: { page_cache_mb: 0 },
  });
  for (
    const path of [
      "/shop/products.json?_size=2",
      "/shop/products/1.json",
      "/shop/products/1.json?_shape=array",
    ]
  ) {
    await svc.client.get(path);
    const first = await svc.client.get(path); // kept the second time it is asked for
    const queriesBefore = svc.queryCache()!.stats();
    const before = hits(svc);
    const again = await svc.client.get(path);
    assert.equal(hits(svc), before + 1, `${path}: answered from the page cache`);
    assert.deepEqual(svc.queryCache()!.stats(), queriesBefore, `${path}: no query asked`);
    assert.equal(again.text, first.text, path);
    assert.deepEqual([...again.headers], [...first.headers], path);
    // And the same as a service without the cache says (the row page's query_ms aside).
    const uncached = await fresh.client.get(path);
    const body = (text: string) => text.replace(/"query_ms":[0-9.e-]+/, "");
    assert.equal(body(uncached.text), body(first.text), path);
  }
  assert.equal(fresh.pageCache(), null);
});

Deno.test("a kept page is compressed once per coding, and its copies decode to it", () => {
  const cache = new PageCache(1_000_000);
  askedTwice(cache, "page");
  const rows = Array.from({ length: 300 }, (_, id) => ({ id, name: `row ${id}` }));
  const text = JSON.stringify({ ok: true, rows });
  const json = { content_type: "application/json; charset=utf-8" };
  assert.ok(cache.put("page", new Response(text, json)));
  const asking = (coding: string) =>
    new Request(
      new globalThis.Request("http://localhost/db/t.json", {
        headers: { "accept-encoding": coding },
      }),
    );
  const sent = (response: Response, coding: string) => {
    compressResponse(asking(coding), response);
    assert.equal(response.headers["content-encoding"], coding);
    return response.body as Uint8Array;
  };
  for (const coding of ["br", "gzip"]) {
    const first = sent(cache.get("page")!, coding);
    // The very same bytes for the next hit: not compressed again.
    assert.equal(sent(cache.get("page")!, coding), first, coding);
    const decoded = coding === "br" ? zlib.brotliDecompressSync(first) : zlib.gunzipSync(first);
    assert.equal(new TextDecoder().decode(decoded), text, coding);
  }
  // A page that is not kept is compressed for each response.
  assert.notEqual(sent(new Response(text, json), "br"), sent(new Response(text, json), "br"));
});

Deno.test("HTML pages, streams, traces and pages that set a cookie are not kept", async () => {
  await using svc = new Service({
    immutables: [buildShopDb()],
    metadata: SHOP_METADATA,
    settings: { trace_debug: true },
  });
  for (
    const path of [
      "/shop/products", // HTML: a CSRF token bound to the visitor's cookie
      "/shop/products.csv?_stream=on",
      "/shop/products.csv", // a stream too (rows are written as they are read)
      "/shop/products.json?_trace=1",
    ]
  ) {
    await svc.client.get(path);
    await svc.client.get(path);
    const before = hits(svc);
    await svc.client.get(path);
    assert.equal(hits(svc), before, path);
  }
  const cache = new PageCache(1 << 20);
  for (const key of ["a", "b", "c"]) askedTwice(cache, key);
  const withCookie = Response.json({ ok: true });
  withCookie.set_cookie("ds_messages", "x");
  assert.equal(cache.put("a", withCookie), false);
  assert.equal(cache.put("b", new Response("x", { status: 404 })), false);
  assert.equal(cache.put("c", Response.json({ ok: true })), true);
});

Deno.test("a kept page is never sent to another actor, another host, or after a write", async () => {
  const metadata = {
    databases: { shop: { tables: { orders: { allow: { id: "alice" } } } } },
  };
  await using svc = new Service({ files: [buildShopDb()], metadata });
  const alice = { cookies: signedIn(svc, { id: "alice" }) };
  for (let i = 0; i < 3; i++) {
    assert.equal((await svc.client.get("/shop/orders.json", alice)).status, 200);
  }
  assert.ok(hits(svc) >= 1, "alice's page was kept");
  assert.equal((await svc.client.get("/shop/orders.json")).status, 403, "not for anonymous");
  assert.equal(
    (await svc.client.get("/shop/orders.json", { cookies: signedIn(svc, { id: "bob" }) })).status,
    403,
    "nor for bob",
  );

  // Absolute URLs come from the Host header: a forged one must not reach other visitors.
  const page = "/shop/products.json?_size=2&_extra=next_url";
  const forged = await svc.client.get(page, { headers: { host: "evil.example" } });
  assert.match(forged.json().next_url, /^http:\/\/evil\.example\//);
  const honest = await svc.client.get(page, { headers: { host: "data.example" } });
  assert.match(honest.json().next_url, /^http:\/\/data\.example\//);

  // A write changes the file's data_version, hence the key: the next request sees the row.
  const url = "/shop/products.json?_shape=array&_size=max";
  const before = (await svc.client.get(url)).json().length;
  await svc.client.get(url);
  await svc.get_database("shop").execute_write(
    "insert into products (name, category_id, price) values ('kept?', 1, 1)",
  );
  assert.equal((await svc.client.get(url)).json().length, before + 1);
});

Deno.test("with a plugin of one's own loaded, no page is kept", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(
    `${dir}/clock.js`,
    "export const hooks = { extra_template_vars: () => ({}) };",
  );
  try {
    await using svc = new Service({
      immutables: [buildShopDb()],
      metadata: SHOP_METADATA,
      plugins: [`${dir}/clock.js`],
    });
    await svc.invoke_startup();
    await svc.client.get("/shop/products.json");
    assert.equal(svc.pageCache(), null);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the page cache stays within its budget, oldest first, and skips pages too big", () => {
  const page = (size: number) => new Response("x".repeat(size), { content_type: "text/csv" });
  const cache = new PageCache(128 * 1024);
  // Kept as UTF-8: each page takes about 10 KB; twelve fit in 128 KB.
  for (let i = 0; i < 16; i++) {
    askedTwice(cache, `p${i}`);
    assert.equal(cache.put(`p${i}`, page(10_000)), true);
  }
  const { entries, bytes } = cache.stats();
  assert.ok(bytes <= 128 * 1024, `${bytes} bytes`);
  assert.equal(entries, 12);
  assert.equal(cache.get("p3"), null, "the oldest went first");
  const kept = cache.get("p4")?.body as Uint8Array;
  assert.equal(new TextDecoder().decode(kept), "x".repeat(10_000));
  // A page over an eighth of the budget is not kept (one export must not empty the cache).
  askedTwice(cache, "big");
  assert.equal(cache.put("big", page(5_000_000)), false);
  assert.equal(cache.stats().entries, 12);
});

Deno.test("a page is kept the second time it is asked for; pages asked for once do not crowd it out", async () => {
  const cache = new PageCache(1 << 20);
  const page = () => Response.json({ ok: true });
  assert.equal(cache.get("once"), null);
  assert.equal(cache.put("once", page()), false, "asked for once: not kept");
  assert.equal(cache.get("once"), null);
  assert.equal(cache.put("once", page()), true, "asked for again: kept");
  assert.ok(cache.get("once"));

  // Through the service: a row page asked for once is built and not kept, however many other
  // rows are asked for; a page asked for twice is kept and sent again.
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  await svc.client.get("/shop/products.json?_size=2");
  for (let id = 1; id <= 5; id++) await svc.client.get(`/shop/products/${id}.json`);
  assert.equal(svc.pageCache()!.stats().entries, 0);
  await svc.client.get("/shop/products.json?_size=2");
  assert.equal(svc.pageCache()!.stats().entries, 1);
  const before = hits(svc);
  await svc.client.get("/shop/products.json?_size=2");
  assert.equal(hits(svc), before + 1);

  // The keys remembered are bounded: the set starts over instead of growing with every URL.
  const busy = new PageCache(1 << 20);
  for (let i = 0; i < 10_000; i++) busy.get(`k${i}`);
  busy.get("k9999");
  assert.equal(busy.put("k9999", page()), true, "a recent key is still remembered");
  busy.get("k0");
  assert.equal(busy.put("k0", page()), false, "an old one was forgotten");
});
