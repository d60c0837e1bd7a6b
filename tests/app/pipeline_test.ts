import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";

Deno.test("an unknown database is a 404 in JSON for .json URLs and HTML otherwise", async () => {
  await using svc = shopService();
  const json = await svc.client.get("/nope.json");
  const expected = example("37-error-404-database.json");
  assert.equal(json.status, 404);
  assert.equal(json.headers.get("content-type"), expected.headers["content-type"]);
  assert.equal(json.headers.get("cache-control"), null);
  const body = json.json();
  for (const [key, value] of Object.entries(expected.body as Record<string, unknown>)) {
    assert.deepEqual(body[key], value, key);
  }
  const html = await svc.client.get("/nope");
  assert.equal(html.status, 404);
  assert.match(html.headers.get("content-type")!, /^text\/html/);
  assert.match(html.text, /Database not found/);
  const accept = await svc.client.get("/nope", { headers: { accept: "application/json" } });
  assert.equal(accept.json().status, 404);
});

Deno.test("a wrong method is a 405; HEAD answers GET routes without a body", async () => {
  await using svc = shopService();
  assert.equal((await svc.client.post("/-/versions.json", { json: {} })).status, 405);
  const head = await svc.client.head("/-/versions.json");
  assert.equal(head.status, 200);
  assert.equal(head.text, "");
  assert.match(head.headers.get("content-type")!, /application\/json/);
});

Deno.test("--cors adds CORS headers and answers OPTIONS", async () => {
  {
    await using svc = shopService({ cors: true });
    const response = await svc.client.get("/-/versions.json");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.match(response.headers.get("access-control-allow-headers")!, /Authorization/);
    const options = await svc.client.options("/shop/products.json");
    assert.equal(options.status, 200);
    assert.equal(options.text, "ok");
    assert.equal(options.headers.get("access-control-allow-origin"), "*");
  }
  await using plain = shopService();
  const response = await plain.client.get("/-/versions.json");
  assert.equal(response.headers.get("access-control-allow-origin"), null);
});

Deno.test("bundled static assets are served; traversal attempts are 404", async () => {
  await using svc = shopService();
  const css = await svc.client.get("/-/static/app.css");
  assert.equal(css.status, 200);
  assert.match(css.headers.get("content-type")!, /^text\/css/);
  for (
    const path of [
      "/-/static/../deno.json",
      "/-/static/%2e%2e/deno.json",
      "/-/static/..%2fdeno.json",
    ]
  ) {
    assert.equal((await svc.client.get(path)).status, 404, path);
  }
});

Deno.test("--static mounts serve a directory at /mount/", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/notes.txt`, "static notes");
  await using svc = shopService({ static_mounts: [["assets", dir]] });
  const response = await svc.client.get("/assets/notes.txt");
  assert.equal(response.status, 200);
  assert.equal(response.text, "static notes");
  assert.equal((await svc.client.get("/assets/missing.txt")).status, 404);
});

Deno.test("custom pages: nested paths, {variables}, status, headers, redirects and raise_404", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.mkdirSync(`${dir}/pages/about`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/pages/about.html`, "About this site");
  Deno.writeTextFileSync(
    `${dir}/pages/about/{slug}.html`,
    `{% if slug == "gone" %}{{ raise_404("No such page") }}{% endif %}` +
      `{{ custom_status(202) }}{{ custom_header("x-page", slug) }}Slug: {{ slug }}`,
  );
  Deno.writeTextFileSync(`${dir}/pages/old.html`, `{{ custom_redirect("/about", 301) }}`);
  await using svc = shopService({ template_dir: dir });
  const about = await svc.client.get("/about");
  assert.equal(about.status, 200);
  assert.match(about.text, /About this site/);
  assert.match(about.headers.get("content-type")!, /^text\/html; charset=utf-8/);
  const slug = await svc.client.get("/about/maps");
  assert.equal(slug.status, 202);
  assert.equal(slug.headers.get("x-page"), "maps");
  assert.match(slug.text, /Slug: maps/);
  const old = await svc.client.get("/old");
  assert.equal(old.status, 301);
  assert.equal(old.headers.get("location"), "/about");
  const gone = await svc.client.get("/about/gone");
  assert.equal(gone.status, 404);
  assert.match(gone.text, /No such page/);
});

Deno.test("base_url: pages live under the prefix and nothing outside it matches", async () => {
  await using svc = shopService({ settings: { base_url: "/data/" } });
  const handler = svc.handler();
  const inside = await handler(new Request("http://localhost/data/-/versions.json"));
  assert.equal(inside.status, 200);
  const outside = await handler(new Request("http://localhost/-/versions.json"));
  assert.equal(outside.status, 404);
});

Deno.test("unexpected errors become a 500 with the message and no stack trace", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.mkdirSync(`${dir}/pages`);
  Deno.writeTextFileSync(`${dir}/pages/broken.html`, "{{ undefined_function() }}");
  await using svc = shopService({ template_dir: dir });
  const originalError = console.error;
  console.error = () => {};
  try {
    const response = await svc.client.get("/broken");
    assert.equal(response.status, 500);
    assert.doesNotMatch(response.text, /at .*\.ts:\d+/);
  } finally {
    console.error = originalError;
  }
});

Deno.test("a percent-encoded table path that 404s redirects to its tilde form", async () => {
  const dir = Deno.makeTempDirSync();
  const { Connection } = await import("../../src/sqlite/mod.ts");
  const path = `${dir}/files.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(
    'create table "reports/2024" (id integer primary key, title text); insert into "reports/2024" values (1, \'q1\');',
  );
  conn.close();
  const { Service } = await import("../../src/service.ts");
  await using svc = new Service({ files: [path] });
  const old = await svc.client.get("/files/reports%2F2024.json?_size=1");
  assert.equal(old.status, 302);
  assert.equal(old.headers.get("location"), "/files/reports~2F2024.json?_size=1");
  const tilde = await svc.client.get("/files/reports~2F2024.json");
  assert.equal(tilde.status, 200);
  assert.deepEqual(tilde.json().rows, [{ id: 1, title: "q1" }]);
  assert.equal((await svc.client.get("/files/nope%2Fnope")).status, 302);
  assert.equal((await svc.client.get("/files/nope~2Fnope")).status, 404);
});

Deno.test("POST to a table or a read-only canned query is a 405 with an Allow header", async () => {
  await using svc = shopService();
  for (const path of ["/shop/products", "/shop/products_by_category"]) {
    const response = await svc.client.post(path, { json: {} });
    assert.equal(response.status, 405, path);
    assert.equal(response.headers.get("allow"), "GET, HEAD", path);
  }
});

Deno.test("HTML 404 pages name what was not found; JSON keeps the short message", async () => {
  await using svc = shopService();
  assert.match((await svc.client.get("/nope")).text, /Database not found: nope/);
  assert.match((await svc.client.get("/shop/nope")).text, /Table not found: nope/);
  assert.match(
    (await svc.client.get("/shop/products/999")).text,
    /Row not found: 999 in products/,
  );
  assert.equal((await svc.client.get("/shop/nope.json")).json().error, "Table not found");
});

Deno.test("under base_url, request.path and request.url keep the prefix; routing does not", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.mkdirSync(`${dir}/pages`);
  Deno.writeTextFileSync(
    `${dir}/pages/where.html`,
    "path={{ request.path }} url={{ request.url }}",
  );
  await using svc = shopService({ template_dir: dir, settings: { base_url: "/data/" } });
  const page = await svc.client.get("/data/where");
  assert.match(page.text, /path=\/data\/where url=http:\/\/localhost\/data\/where/);
  const table = await svc.client.get("/data/shop/products");
  assert.equal(
    table.headers.get("link"),
    '<http://localhost/data/shop/products.json>; rel="alternate"; type="application/json+datasette"',
  );
  const old = await svc.client.get("/data/shop/order%5Fitems.json");
  assert.equal(old.headers.get("location"), "/data/shop/order~5Fitems.json");
});
