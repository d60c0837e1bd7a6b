import assert from "node:assert/strict";
import { Response } from "../../src/http/response.ts";
import type { AsgiMessage } from "../../src/plugins/hookspecs.ts";

Deno.test("constructor defaults: 200 text/plain", async () => {
  const web = new Response("hello").toWebResponse();
  assert.equal(web.status, 200);
  assert.equal(web.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await web.text(), "hello");
});

Deno.test("constructor takes status, headers and content_type", async () => {
  const response = new Response("<b>", {
    status: 201,
    headers: { "X-Thing": "1" },
    content_type: "text/html",
  });
  const web = response.toWebResponse();
  assert.equal(web.status, 201);
  assert.equal(web.headers.get("x-thing"), "1");
  assert.equal(web.headers.get("content-type"), "text/html");
  assert.equal(await web.text(), "<b>");
});

Deno.test("text, html and json helpers set their content types", async () => {
  assert.equal(Response.text("t").content_type, "text/plain; charset=utf-8");
  assert.equal(Response.html("h", { status: 404 }).status, 404);
  assert.equal(Response.html("h").content_type, "text/html; charset=utf-8");
  const json = Response.json({ ok: true, n: 12345678901234567890n }, { headers: { "X-A": "b" } });
  assert.equal(json.content_type, "application/json; charset=utf-8");
  assert.equal(json.headers["X-A"], "b");
  assert.equal(await json.toWebResponse().text(), '{"ok":true,"n":12345678901234567890}');
});

Deno.test("redirect is 302 by default, 301 on request", () => {
  const found = Response.redirect("/db");
  assert.equal(found.status, 302);
  assert.equal(found.toWebResponse().headers.get("location"), "/db");
  assert.equal(Response.redirect("/db", { status: 301 }).status, 301);
});

Deno.test("redirect collapses leading slashes and backslashes", () => {
  assert.equal(Response.redirect("//evil.example/x").headers.Location, "/evil.example/x");
  assert.equal(Response.redirect("/\\/evil.example").headers.Location, "/evil.example");
  assert.equal(Response.redirect("https://ok.example/").headers.Location, "https://ok.example/");
});

Deno.test("set_cookie adds one Set-Cookie header per cookie", () => {
  const response = Response.text("ok");
  response.set_cookie("a", "1");
  response.set_cookie("b", "2", { max_age: 0, httponly: true });
  assert.deepEqual(response.toWebResponse().headers.getSetCookie(), [
    "a=1; Path=/; SameSite=lax",
    "b=2; HttpOnly; Max-Age=0; Path=/; SameSite=lax",
  ]);
});

Deno.test("an explicit content-type header wins over content_type", () => {
  const response = new Response("x", { headers: { "Content-Type": "text/csv" } });
  assert.equal(response.toWebResponse().headers.get("content-type"), "text/csv");
});

Deno.test("bytes and streams are valid bodies", async () => {
  const bytes = new Response(new Uint8Array([1, 2, 3]), { content_type: "application/x" });
  assert.deepEqual(
    new Uint8Array(await bytes.toWebResponse().arrayBuffer()),
    new Uint8Array([1, 2, 3]),
  );
  const stream = new Response(ReadableStream.from([new TextEncoder().encode("a,b\n")]));
  assert.equal(await stream.toWebResponse().text(), "a,b\n");
});

Deno.test("asgi_send sends start then body", async () => {
  const response = Response.json({ ok: true }, { status: 201 });
  response.set_cookie("c", "v");
  const sent: AsgiMessage[] = [];
  await response.asgi_send((message) => void sent.push(message));
  assert.deepEqual(sent, [
    {
      type: "http.response.start",
      status: 201,
      headers: [
        ["content-type", "application/json; charset=utf-8"],
        ["set-cookie", "c=v; Path=/; SameSite=lax"],
      ],
    },
    { type: "http.response.body", body: new TextEncoder().encode('{"ok":true}') },
  ]);
});

Deno.test("asgi_send streams chunks with more_body", async () => {
  const chunks = ["a", "b"].map((c) => new TextEncoder().encode(c));
  const sent: AsgiMessage[] = [];
  await new Response(ReadableStream.from(chunks)).asgi_send((m) => void sent.push(m));
  const bodies = sent.slice(1).map((m) => m.type === "http.response.body" ? m : null);
  assert.deepEqual(bodies.map((m) => new TextDecoder().decode(m!.body as Uint8Array)), [
    "a",
    "b",
    "",
  ]);
  assert.deepEqual(bodies.map((m) => m!.more_body ?? false), [true, true, false]);
});

Deno.test("fromWeb keeps status, headers, content type and cookies", async () => {
  const headers = new Headers({ "content-type": "text/csv", "x-a": "1" });
  headers.append("set-cookie", "a=1; Path=/");
  const response = Response.fromWeb(new globalThis.Response("x,y", { status: 203, headers }));
  assert.equal(response.status, 203);
  assert.equal(response.content_type, "text/csv");
  assert.equal(response.headers["x-a"], "1");
  assert.deepEqual(response.set_cookie_headers, ["a=1; Path=/"]);
  assert.equal(await response.toWebResponse().text(), "x,y");
});

Deno.test("304 responses drop the body", () => {
  const web = new Response("ignored", { status: 304 }).toWebResponse();
  assert.equal(web.body, null);
});

Deno.test("asgi_send answers a plugin route through its send function", async () => {
  const { Service } = await import("../../src/service.ts");
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-asgi-" });
  const responseModule = new URL("../../src/http/response.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    `${dir}/asgi_route.ts`,
    `import { Response } from "${responseModule}";
export function register_routes() {
  return [
    ["/-/asgi", async ({ send }) => {
      const response = Response.html("<b>sent</b>", { status: 201, headers: { "x-test": "1" } });
      response.set_cookie("flavour", "plain");
      await response.asgi_send(send);
    }],
    ["/-/asgi-stream", async ({ send }) => {
      const chunks = ["a,b\\n", "1,2\\n"].map((c) => new TextEncoder().encode(c));
      await new Response(ReadableStream.from(chunks), { content_type: "text/csv" })
        .asgi_send(send);
    }],
  ];
}
`,
  );
  try {
    await using svc = new Service({ plugins_dir: dir });
    const sent = await svc.client.get("/-/asgi");
    assert.equal(sent.status, 201);
    assert.equal(sent.text, "<b>sent</b>");
    assert.equal(sent.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(sent.headers.get("x-test"), "1");
    assert.deepEqual(sent.cookies, { flavour: "plain" });
    const streamed = await svc.client.get("/-/asgi-stream");
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.get("content-type"), "text/csv");
    assert.equal(streamed.text, "a,b\n1,2\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
