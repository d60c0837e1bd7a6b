import assert from "node:assert/strict";
import zlib from "node:zlib";
import { Service } from "../../src/service.ts";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { chooseCoding } from "../../src/app/compression.ts";

function decode(coding: string | null, body: Uint8Array): string {
  const bytes = coding === "gzip"
    ? zlib.gunzipSync(body)
    : coding === "br"
    ? zlib.brotliDecompressSync(body)
    : body;
  return new TextDecoder().decode(bytes);
}

Deno.test("HTML, JSON and streamed CSV are compressed by Accept-Encoding, and decode to the same", async () => {
  await using svc = new Service({
    immutables: [buildShopDb()],
    metadata: SHOP_METADATA,
    settings: { max_returned_rows: 3 },
  });
  for (
    const page of [
      "/shop/products",
      "/shop/products.json?_extra=count,column_details,suggested_facets",
      "/shop/products.csv?_stream=on",
    ]
  ) {
    const plain = await svc.client.get(page);
    assert.equal(plain.headers.get("content-encoding"), null, page);
    assert.match(plain.headers.get("vary") ?? "", /Accept-Encoding/, page);
    for (const coding of ["gzip", "br"]) {
      const response = await svc.client.get(page, { headers: { "accept-encoding": coding } });
      assert.equal(response.headers.get("content-encoding"), coding, page);
      assert.ok(response.content.length < plain.content.length, `${page} ${coding} is smaller`);
      // Timings and each page's CSP nonce differ from one request to the next; nothing else may.
      const same = (text: string) =>
        text.replace(/"query_ms":[0-9.e-]+/, "").replace(/nonce="[^"]+"/g, 'nonce=""');
      assert.equal(same(decode(coding, response.content)), same(plain.text), `${page} ${coding}`);
    }
  }
});

Deno.test("tiny bodies, HEAD, refused codings and compressed types are sent as they are", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const gzip = { "accept-encoding": "gzip, br" };
  const tiny = await svc.client.get("/shop/categories/1.json?_shape=array", { headers: gzip });
  assert.ok(tiny.content.length < 1024);
  assert.equal(tiny.headers.get("content-encoding"), null);
  const head = await svc.client.head("/shop/products", { headers: gzip });
  assert.equal(head.headers.get("content-encoding"), null);
  const refused = await svc.client.get("/shop/products", {
    headers: { "accept-encoding": "br;q=0, gzip;q=0, identity" },
  });
  assert.equal(refused.headers.get("content-encoding"), null);
  const png = await svc.client.get("/-/static/favicon.svg", { headers: gzip });
  assert.equal(png.status, 200);
  // SVG is text (compressible when large); a font or image would never be.
  assert.equal(chooseCoding("gzip;q=0.5, br;q=0.9"), "br");
  assert.equal(chooseCoding("gzip"), "gzip");
  assert.equal(chooseCoding("*"), "br");
  assert.equal(chooseCoding("identity"), null);
  assert.equal(chooseCoding(undefined), null);
});
