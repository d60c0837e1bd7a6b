import assert from "node:assert/strict";
import { Request } from "../../src/http/request.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("Request.fake scope has exactly the spec's keys", () => {
  const request = Request.fake("/db/table?_size=1", { url_vars: { database: "db" } });
  assert.deepEqual(Object.keys(request.scope).sort(), [
    "http_version",
    "method",
    "path",
    "query_string",
    "raw_path",
    "scheme",
    "type",
    "url_route",
  ]);
  assert.equal(request.scope.type, "http");
  assert.equal(request.scope.http_version, "1.1");
  assert.equal(request.scope.method, "GET");
  assert.equal(request.scope.path, "/db/table");
  assert.deepEqual(request.scope.query_string, bytes("_size=1"));
  assert.deepEqual(request.scope.raw_path, bytes("/db/table"));
  assert.deepEqual(request.scope.url_route, { kwargs: { database: "db" } });
});

Deno.test("Request.fake properties", () => {
  const request = Request.fake("/db/t?foo=1&foo=2", { method: "POST", scheme: "https" });
  assert.equal(request.method, "POST");
  assert.equal(request.scheme, "https");
  assert.equal(request.url, "https://localhost/db/t?foo=1&foo=2");
  assert.equal(request.path, "/db/t");
  assert.equal(request.query_string, "foo=1&foo=2");
  assert.equal(request.full_path, "/db/t?foo=1&foo=2");
  assert.deepEqual(request.args.getlist("foo"), ["1", "2"]);
  assert.deepEqual(request.url_vars, {});
  assert.equal(request.actor, null);
  assert.equal(request.host, "localhost");
  assert.equal(request.full_path, "/db/t?foo=1&foo=2");
  assert.equal(Request.fake("/x").full_path, "/x");
});

Deno.test("headers are lowercased and repeated headers joined", () => {
  const headers = new Headers();
  headers.append("X-Thing", "a");
  headers.append("x-thing", "b");
  headers.set("Host", "example.com:8001");
  const request = new Request(new globalThis.Request("http://127.0.0.1/", { headers }));
  assert.equal(request.headers["x-thing"], "a, b");
  assert.equal(request.host, "example.com:8001");
});

Deno.test("cookies are parsed from the Cookie header", () => {
  const raw = new globalThis.Request("http://localhost/", {
    headers: { cookie: 'ds_actor=abc.def; other="quoted\\073value"' },
  });
  assert.deepEqual(new Request(raw).cookies, { ds_actor: "abc.def", other: "quoted;value" });
});

Deno.test("path stays percent-encoded as received; scope.path is decoded", () => {
  const request = new Request(new globalThis.Request("http://localhost/db/a%2Fb~2Ec?x=1"));
  assert.equal(request.path, "/db/a%2Fb~2Ec");
  assert.equal(request.scope.path, "/db/a/b~2Ec");
  assert.deepEqual(request.scope.raw_path, bytes("/db/a%2Fb~2Ec"));
  assert.deepEqual(request.scope.url_route, { kwargs: {} });
});

Deno.test("scheme option overrides the URL's scheme", () => {
  const request = new Request(new globalThis.Request("http://localhost/x"), { scheme: "https" });
  assert.equal(request.scheme, "https");
  assert.equal(request.url, "https://localhost/x");
});

Deno.test("actor and url_vars are settable", () => {
  const request = new Request(new globalThis.Request("http://localhost/"), {
    url_vars: { database: "db" },
  });
  request.actor = { id: "root" };
  assert.deepEqual(request.actor, { id: "root" });
  assert.equal(request.url_vars.database, "db");
});

function post(body: string, type = "application/x-www-form-urlencoded") {
  return new Request(
    new globalThis.Request("http://localhost/db/q", {
      method: "POST",
      body,
      headers: { "content-type": type },
    }),
  );
}

Deno.test("post_vars gives each field's first value", async () => {
  const request = post("name=Cleo&tag=a&tag=b&empty=");
  assert.deepEqual(await request.post_vars(), { name: "Cleo", tag: "a", empty: "" });
  assert.deepEqual((await request.post_multi()).getlist("tag"), ["a", "b"]);
});

Deno.test("post_body can be read twice", async () => {
  const request = post('{"a": 1}', "application/json");
  assert.equal(new TextDecoder().decode(await request.post_body()), '{"a": 1}');
  assert.equal(new TextDecoder().decode(await request.post_body()), '{"a": 1}');
});

Deno.test("post_body above the limit is a 413", async () => {
  const request = post("x".repeat(100));
  request.max_post_body_bytes = 10;
  await assert.rejects(() => request.post_body(), { name: "PayloadTooLarge", status: 413 });
  await assert.rejects(() => post("x".repeat(11)).post_body(10), { status: 413 });
  assert.equal((await post("x".repeat(10)).post_body(10)).length, 10);
});

Deno.test("a GET request has an empty body", async () => {
  assert.equal((await Request.fake("/").post_body()).length, 0);
  assert.deepEqual(await Request.fake("/").post_vars(), {});
});
