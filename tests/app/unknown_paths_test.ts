/**
 * Issue 37 item 18: a 405 says the page exists, so a method sent to a path that names no
 * database, table or page is a 404; an unknown `/-/…` page is "Page not found", not a missing
 * database called "-".
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

Deno.test("POST or PUT to a database, table or row that does not exist is a 404", async () => {
  await using svc = referenceService();
  const cases: [string, string, string][] = [
    ["POST", "/nope", "Database not found"],
    ["POST", "/nope.json", "Database not found"],
    ["PUT", "/nope", "Database not found"],
    ["POST", "/fixtures/nope", "Table not found"],
    ["POST", "/fixtures/nope.json", "Table not found"],
    ["POST", "/fixtures/nope/1", "Table not found"],
    ["POST", "/-/nope", "Page not found"],
  ];
  for (const [method, path, message] of cases) {
    const response = await svc.client.request(method, path, {
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 404, `${method} ${path}`);
    assert.equal(response.json().error, message, `${method} ${path}`);
  }
});

Deno.test("POST to a page that exists for GET only stays a 405", async () => {
  await using svc = referenceService();
  for (const path of ["/", "/fixtures", "/fixtures/facetable", "/fixtures/facetable/1"]) {
    const response = await svc.client.post(path, {});
    assert.equal(response.status, 405, path);
  }
});

Deno.test("POST to a custom page's path stays a 405: the page exists, for GET", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-pages-" });
  Deno.mkdirSync(`${dir}/pages`);
  Deno.writeTextFileSync(`${dir}/pages/about.html`, "<p>About</p>");
  await using svc = referenceService({ template_dir: dir });
  assert.equal((await svc.client.get("/about")).status, 200);
  assert.equal((await svc.client.post("/about", {})).status, 405);
  assert.equal((await svc.client.post("/nope", {})).status, 404);
});

Deno.test("an unknown /-/ page says page not found, in HTML and JSON", async () => {
  await using svc = referenceService();
  const json = await svc.client.get("/-/nope.json");
  assert.equal(json.status, 404);
  assert.equal(json.json().error, "Page not found");
  const html = await svc.client.get("/-/nope");
  assert.equal(html.status, 404);
  assert.match(html.text, /<p>Page not found<\/p>/);
  assert.doesNotMatch(html.text, /Database not found/);
});
