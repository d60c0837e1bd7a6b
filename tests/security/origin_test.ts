/**
 * Absolute URLs are never built from untrusted headers: `public_url` decides when set;
 * `X-Forwarded-*` counts only with `--trust-proxy`; otherwise the Host header must be a host
 * name (else 400) and pages that embed it are kept out of shared caches.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { SettingsError } from "../../src/config/settings.ts";
import { Service } from "../../src/service.ts";
import { serve } from "../../src/app/server.ts";

/** `next_url` of the first page of products (two rows a page), and the response. */
async function nextUrl(svc: Service, headers: Record<string, string> = {}) {
  const response = await svc.client.get("/shop/products.json?_size=2&_extra=next_url", { headers });
  return { url: response.json().next_url as string, response };
}

Deno.test("without public_url the Host header is used, and shared caches may not keep the page", async () => {
  await using svc = shopService();
  const { url, response } = await nextUrl(svc, { host: "data.example.org:8080" });
  assert.match(
    url,
    /^http:\/\/data\.example\.org:8080\/shop\/products\.json\?_size=2&_extra=next_url&_next=/,
  );
  assert.equal(response.headers.get("cache-control"), "private, max-age=5");
  // X-Forwarded-* from a visitor count for nothing.
  const forwarded = await nextUrl(svc, {
    host: "data.example.org",
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
  });
  assert.match(forwarded.url, /^http:\/\/data\.example\.org\//);
  // The HTML page's Link header is made the same way.
  const page = await svc.client.get("/shop/products", { headers: { host: "data.example.org" } });
  assert.match(page.headers.get("link")!, /^<http:\/\/data\.example\.org\/shop\/products\.json>/);
  assert.match(page.headers.get("cache-control")!, /^private, /);
  // A page that embeds no absolute URL stays cacheable.
  const plain = await svc.client.get("/shop/products/1.json", { headers: { host: "a.example" } });
  assert.equal(plain.headers.get("cache-control"), "max-age=5");
});

Deno.test("a Host header that is not a host name is a 400", async () => {
  await using svc = shopService();
  const invalid = ["ev il<script>", "a/b?c", "x@y", "a.example:99999999", "[zz]"];
  // Shaped like hosts, but no URL can be made of them.
  invalid.push("localhost:99999", "localhost:65536", "1.2.3.256", "999.1.1.1", "1.2.3.4.5");
  for (const host of invalid) {
    const response = await svc.client.get("/shop/products.json", { headers: { host } });
    assert.equal(response.status, 400, host);
    assert.deepEqual(response.json().error, "Invalid Host header");
  }
  for (const host of ["localhost", "127.0.0.1:8001", "[::1]:8001", "data.example.org."]) {
    assert.equal((await svc.client.get("/shop.json", { headers: { host } })).status, 200, host);
  }
});

Deno.test("over a real socket, Host: a/b?c cannot move the path into the query string", async () => {
  await using svc = shopService();
  const controller = new AbortController();
  let port = 0;
  const log: string[] = [];
  const server = await serve(svc, {
    port: 0,
    signal: controller.signal,
    onListen: (url) => (port = Number(new URL(url).port)),
    access_log: (line) => log.push(line),
  });
  const send = async (host: string) => {
    const conn = await Deno.connect({ port });
    await conn.write(new TextEncoder().encode(
      `GET /shop/products.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    ));
    return new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  };
  try {
    const reply = await send("a/b?c");
    assert.match(reply, /^HTTP\/1\.1 400 /);
    assert.match(reply, /Invalid Host header/);
    assert.match(reply, /x-content-type-options: nosniff/i);
    // Deno builds an unparseable URL from this one (http://[::1/…): still a 400, and logged.
    assert.match(await send("[::1"), /^HTTP\/1\.1 400 /);
    // A port past 65535 passes the host pattern; the URL parser refuses it: a 400 too.
    const badPort = await send("localhost:99999");
    assert.match(badPort, /^HTTP\/1\.1 400 /);
    assert.match(badPort, /Invalid Host header/);
    assert.equal(log.length, 3);
    assert.match(log[1], /"GET \/shop\/products\.json" 400 /);
  } finally {
    controller.abort();
    await server.finished;
  }
});

Deno.test("public_url decides every absolute URL, whatever the headers say", async () => {
  await using svc = shopService({ settings: { public_url: "https://data.example.org/" } });
  assert.equal(svc.setting("public_url"), "https://data.example.org");
  const { url, response } = await nextUrl(svc, {
    host: "evil.example",
    "x-forwarded-host": "evil2.example",
  });
  assert.match(url, /^https:\/\/data\.example\.org\/shop\/products\.json\?/);
  assert.equal(response.headers.get("cache-control"), "max-age=5");
  const page = await svc.client.get("/shop/products", { headers: { host: "evil.example" } });
  assert.match(page.headers.get("link")!, /^<https:\/\/data\.example\.org\//);
  // Facet toggles are absolute URLs too.
  const facets = await svc.client.get("/shop/products.json?_facet=category_id", {
    headers: { host: "evil.example" },
  });
  const toggle = facets.json().facet_results.results.category_id.results[0].toggle_url;
  assert.match(toggle, /^https:\/\/data\.example\.org\//);
  for (
    const bad of ["data.example.org", "https://data.example.org/sub", "ftp://x", "https://a@b"]
  ) {
    assert.throws(() => new Service({ settings: { public_url: bad } }), SettingsError, bad);
  }
});

Deno.test("--trust-proxy takes scheme and host from the proxy's X-Forwarded headers", async () => {
  await using svc = shopService({ trust_proxy: true });
  const { url, response } = await nextUrl(svc, {
    host: "internal:8001",
    // The visitor's own value first, the proxy's last: the last one wins.
    "x-forwarded-host": "evil.example, data.example.org",
    "x-forwarded-proto": "https",
  });
  assert.match(url, /^https:\/\/data\.example\.org\/shop\/products\.json\?/);
  // A host named by the proxy is not the visitor's to choose: the page stays cacheable.
  assert.equal(response.headers.get("cache-control"), "max-age=5");
  const secure = await svc.client.get("/shop/add_log_entry", {
    headers: { "x-forwarded-proto": "https" },
  });
  assert.match(secure.headers.getSetCookie().join("\n"), /ds_csrftoken=[^;]+;.*Secure/);
  const bad = await svc.client.get("/shop.json", { headers: { "x-forwarded-host": "a b" } });
  assert.equal(bad.status, 400);
  const badProto = await svc.client.get("/shop.json", {
    headers: { "x-forwarded-proto": "gopher" },
  });
  assert.equal(badProto.status, 400);
});
