import assert from "node:assert/strict";
import { readHeaders, Request } from "../../src/http/request.ts";

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

Deno.test("odd inputs: + and %2B in args, non-UTF-8 escapes, bare keys, `=` in cookie values", () => {
  const request = Request.fake("/db/t?a=1+2&a=3%2B4&q=%FF%FE&flag&empty=&bad=%ZZ&k=%E2%9C%93");
  assert.deepEqual(request.args.getlist("a"), ["1 2", "3+4"]);
  // Invalid UTF-8 decodes to U+FFFD (as Python's parse_qs does), never an exception.
  assert.equal(request.args.get("q"), "\uFFFD\uFFFD");
  assert.equal(request.args.get("flag"), "");
  assert.equal(request.args.get("empty"), "");
  assert.equal(request.args.get("bad"), "%ZZ");
  assert.equal(request.args.get("k"), "✓");
  assert.deepEqual(request.args.keys(), ["a", "q", "flag", "empty", "bad", "k"]);
  assert.equal(request.query_string, "a=1+2&a=3%2B4&q=%FF%FE&flag&empty=&bad=%ZZ&k=%E2%9C%93");
  const cookies = new Request(
    new globalThis.Request("http://localhost/", {
      headers: { cookie: "token=a=b==; empty=; spaced = v ; flag" },
    }),
  ).cookies;
  assert.deepEqual(cookies, { token: "a=b==", empty: "", spaced: "v" });
});

Deno.test("odd inputs over a real socket: repeated headers and Cookie lines, raw escapes", async () => {
  const { Service } = await import("../../src/service.ts");
  const { serve } = await import("../../src/app/server.ts");
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-request-" });
  Deno.writeTextFileSync(
    `${dir}/echo.ts`,
    `export function register_routes() {
  return [[/^\\/-\\/echo\\/(?<rest>.*)$/, ({ request }) => new Response(JSON.stringify({
    path: request.path, full_path: request.full_path, query_string: request.query_string,
    args: request.args.pairs(), headers: request.headers, cookies: request.cookies,
    host: request.host, url: request.url, url_vars: request.url_vars,
    scope_path: request.scope.path,
  }), { headers: { "content-type": "application/json" } })]];
}
`,
  );
  await using svc = new Service({ plugins_dir: dir, settings: { base_url: "/base/" } });
  const controller = new AbortController();
  let port = 0;
  const server = await serve(svc, {
    port: 0,
    signal: controller.signal,
    onListen: (url) => (port = Number(new URL(url).port)),
  });
  try {
    const conn = await Deno.connect({ port });
    await conn.write(bytes(
      "GET /base/-/echo/a%2Fb~2Ec?q=%FF&x=a+b&y=%2B&y=2&z=%22%3C%3E%22 HTTP/1.1\r\n" +
        'Host: example.com:8080\r\nCookie: a=1\r\nCookie: b=2=3; c="x\\073y"\r\n' +
        "X-Rep: one\r\nX-Rep: two\r\nConnection: close\r\n\r\n",
    ));
    let raw = "";
    const buffer = new Uint8Array(16384);
    for (let n; (n = await conn.read(buffer)) !== null;) {
      raw += new TextDecoder().decode(buffer.subarray(0, n));
    }
    conn.close();
    const [head, body] = raw.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200/);
    const echo = JSON.parse(body);
    // request.path keeps base_url (routing strips it) and its percent- and tilde-encoding.
    assert.equal(echo.path, "/base/-/echo/a%2Fb~2Ec");
    assert.equal(echo.scope_path, "/base/-/echo/a/b~2Ec");
    assert.deepEqual(echo.url_vars, { rest: "a%2Fb~2Ec" });
    assert.equal(echo.query_string, "q=%FF&x=a+b&y=%2B&y=2&z=%22%3C%3E%22");
    assert.equal(echo.full_path, `/base/-/echo/a%2Fb~2Ec?${echo.query_string}`);
    assert.deepEqual(echo.args, [["q", "\uFFFD"], ["x", "a b"], ["y", "+"], ["y", "2"], [
      "z",
      '"<>"',
    ]]);
    assert.equal(echo.headers["x-rep"], "one, two");
    assert.equal(echo.host, "example.com:8080");
    assert.equal(echo.url, `http://example.com:8080${echo.full_path}`);
    assert.deepEqual(echo.cookies, { a: "1", b: "2=3", c: "x;y" });
  } finally {
    controller.abort();
    await server.finished;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readHeaders: a header named like an inherited member is read as sent", () => {
  const raw = new globalThis.Request("http://x/", {
    headers: { constructor: "a", toString: "b", "x-two": "1" },
  });
  const { headers } = readHeaders(raw);
  assert.equal(headers["constructor"], "a");
  assert.equal(headers["tostring"], "b");
  assert.equal(headers["x-two"], "1");
});
