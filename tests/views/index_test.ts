import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";

Deno.test("GET /.json matches the reference index for the shop database", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/.json");
  const expected = example("01-index.json");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
  // Recorded in the spec's era, when `databases` was keyed by name; 1.0 lists them, after `ok`
  // and a note that this page is outside the stable API.
  const recorded = expected.body as { databases: Record<string, unknown>; metadata: unknown };
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["ok", "unstable", "databases", "metadata"]);
  assert.equal(body.ok, true);
  assert.match(body.unstable, /stable API/);
  assert.deepEqual(body.databases, Object.values(recorded.databases));
  assert.deepEqual(body.metadata, recorded.metadata);
});

Deno.test("GET / lists each database with a link to it", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(response.text, /href="\/shop"/);
  assert.match(response.text, /Corner Shop/);
});

Deno.test("HTML pages link to their JSON twin with rel=alternate", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/");
  assert.equal(
    response.headers.get("link"),
    '<http://localhost/.json>; rel="alternate"; type="application/json+datasette"',
  );
  assert.equal((await svc.client.get("/.json")).headers.get("link"), null);
});

Deno.test("the index page links each listed table to its page", async () => {
  await using svc = shopService();
  const html = (await svc.client.get("/")).text;
  assert.match(html, /href="\/shop\/products"/);
  assert.match(html, /href="\/shop\/order_items"/);
});

Deno.test("template_debug: ?_context=1 shows the template context as JSON", async () => {
  await using off = shopService();
  await using on = shopService({ settings: { template_debug: true } });
  const plain = await off.client.get("/?_context=1");
  assert.match(plain.headers.get("content-type")!, /^text\/html/);
  const debug = await on.client.get("/shop/products?_context=1");
  assert.match(debug.headers.get("content-type")!, /^application\/json/);
  const body = debug.json();
  assert.equal(body.template, "table.html");
  assert.equal(body.context.table, "products");
  assert.match(body.context.csrftoken, /^<function /);
});
