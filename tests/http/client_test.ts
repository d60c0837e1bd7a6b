import assert from "node:assert/strict";
import { Client } from "../../src/http/client.ts";
import { Urls } from "../../src/http/urls.ts";

/** Echoes what it received, plus a few canned behaviours. */
async function handler(request: globalThis.Request): Promise<globalThis.Response> {
  const url = new URL(request.url);
  if (url.pathname.endsWith("/redirect")) {
    return new Response(null, { status: 302, headers: { location: "/prefix/target?from=r" } });
  }
  if (url.pathname.endsWith("/login")) {
    const headers = new Headers({ "content-type": "text/plain" });
    headers.append("set-cookie", "ds_actor=abc.def; Path=/; HttpOnly");
    headers.append("set-cookie", 'flash="a\\073b"; Path=/');
    return new Response("logged in", { headers });
  }
  const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
  return Response.json({
    method: request.method,
    path: url.pathname,
    query: url.search,
    contentType: request.headers.get("content-type"),
    cookie: request.headers.get("cookie"),
    custom: request.headers.get("x-custom"),
    body,
  });
}

const client = new Client(handler, { baseUrl: () => "/prefix/" });

Deno.test("get prefixes base_url and returns the read response", async () => {
  const response = await client.get("/db/table.json?_size=1");
  assert.equal(response.status, 200);
  assert.equal(response.status_code, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.url, "http://localhost/prefix/db/table.json?_size=1");
  const data = response.json() as Record<string, string>;
  assert.equal(data.path, "/prefix/db/table.json");
  assert.equal(data.query, "?_size=1");
  assert.equal(typeof response.text, "string");
});

Deno.test("paths already carrying the prefix are left alone", async () => {
  const data = (await client.get("/prefix/db")).json() as Record<string, string>;
  assert.equal(data.path, "/prefix/db");
  const urls = new Urls(() => "/prefix/");
  const fromUrls = (await client.get(urls.table("db", "t"))).json() as Record<string, string>;
  assert.equal(fromUrls.path, "/prefix/db/t");
});

Deno.test("post with data sends a form body", async () => {
  const response = await client.post("/db/q", { data: { name: "Cleo", tag: ["a", "b"] } });
  const data = response.json() as Record<string, string>;
  assert.equal(data.method, "POST");
  assert.equal(data.contentType, "application/x-www-form-urlencoded");
  assert.equal(data.body, "name=Cleo&tag=a&tag=b");
});

Deno.test("post with json sends a JSON body", async () => {
  const data = (await client.post("/db/t/-/insert", { json: { row: { a: 1 } } })).json() as Record<
    string,
    string
  >;
  assert.equal(data.contentType, "application/json");
  assert.deepEqual(JSON.parse(data.body), { row: { a: 1 } });
});

Deno.test("headers and cookies are sent", async () => {
  const data = (await client.get("/", {
    headers: { "x-custom": "yes" },
    cookies: { ds_actor: "x", other: "y" },
  })).json() as Record<string, string>;
  assert.equal(data.custom, "yes");
  assert.equal(data.cookie, "ds_actor=x; other=y");
});

Deno.test("every method helper sends its method", async () => {
  for (const name of ["put", "patch", "delete", "options"] as const) {
    const data = (await client[name]("/x")).json() as Record<string, string>;
    assert.equal(data.method, name.toUpperCase());
  }
  const head = await client.head("/x");
  assert.equal(head.status, 200);
  assert.equal(head.text, "");
  const custom = (await client.request("PROPFIND", "/x")).json() as Record<string, string>;
  assert.equal(custom.method, "PROPFIND");
});

Deno.test("redirects are returned unless follow_redirects", async () => {
  const response = await client.get("/redirect");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/prefix/target?from=r");
  const followed = await client.get("/redirect", { follow_redirects: true });
  assert.equal(followed.status, 200);
  assert.equal((followed.json() as Record<string, string>).path, "/prefix/target");
  assert.equal(followed.url, "http://localhost/prefix/target?from=r");
});

Deno.test("cookies from Set-Cookie headers", async () => {
  const response = await client.get("/login");
  assert.deepEqual(response.cookies, { ds_actor: "abc.def", flash: "a;b" });
  assert.equal(response.text, "logged in");
});

Deno.test("without base_url paths pass through", async () => {
  const plain = new Client(handler);
  const data = (await plain.get("/db")).json() as Record<string, string>;
  assert.equal(data.path, "/db");
});
