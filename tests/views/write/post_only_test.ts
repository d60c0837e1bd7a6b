/**
 * A write endpoint's address pasted into a browser: a 405 page that says what the address is for
 * and links the page where a browser does it, with `Allow`; API clients keep the JSON 405.
 */
import assert from "node:assert/strict";
import { auth, errorsOf, withWriter } from "./_write_helpers.ts";
import { shopService } from "../../fixtures/shop.ts";

/** Chromium's Accept header for a page it navigates to. */
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif," +
  "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

/** Endpoint, what the page says it does, the page it links. */
const ENDPOINTS: [string, string, string][] = [
  ["/shop/products/-/alter", "alters a table", "/shop/products/-/alter-table"],
  ["/shop/-/create", "creates tables", "/-/create-table?database=shop"],
  ["/shop/-/execute-write", "runs write SQL", "/shop"],
  ["/shop/log/-/insert", "inserts rows", "/shop/log"],
  ["/shop/log/-/upsert", "inserts or updates rows", "/shop/log"],
  ["/shop/log/-/drop", "drops a table", "/shop/log"],
  ["/shop/log/-/update-rows", "updates rows", "/shop/log"],
  ["/shop/log/-/delete-rows", "deletes rows", "/shop/log"],
  ["/shop/log/-/upload", "inserts a part of an uploaded CSV file", "/shop/log"],
  ["/shop/products/-/set-column-type", "sets a column&#39;s type", "/shop/products"],
  ["/shop/products/1/-/update", "updates a row", "/shop/products/1"],
  ["/shop/products/1/-/delete", "deletes a row", "/shop/products/1"],
  ["/shop/-/history/-/revert", "undoes recorded changes", "/shop/-/history"],
];

Deno.test("a write endpoint opened in a browser: a 405 page linking where to do it", async () => {
  await withWriter(async (svc) => {
    for (const [path, does, page] of ENDPOINTS) {
      const response = await svc.client.get(path, {
        headers: { accept: BROWSER_ACCEPT, ...auth(svc) },
      });
      assert.equal(response.status, 405, path);
      assert.match(response.headers.get("content-type")!, /^text\/html/, path);
      assert.match(response.headers.get("allow")!, /^POST\b/, path);
      assert.ok(response.text.includes(`the write API&#39;s endpoint that ${does}`), path);
      const href = page.replaceAll("&", "&amp;");
      assert.ok(response.text.includes(`<a href="${href}">`), `${path} links ${page}`);
      assert.equal(response.text.includes("Something went wrong on our side"), false, path);
      // The page it links is there for this actor.
      const linked = await svc.client.get(page, { headers: auth(svc) });
      assert.equal(linked.status, 200, `${page}: ${linked.status}`);
    }
  });
});

Deno.test("a write endpoint asked by an API client stays a JSON 405 with Allow", async () => {
  await withWriter(async (svc) => {
    for (const [path] of ENDPOINTS) {
      for (const accept of [undefined, "*/*", "application/json", "application/json, text/html"]) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const response = await svc.client.get(path, { headers });
        assert.equal(response.status, 405, `${path} ${accept}`);
        assert.deepEqual(errorsOf(response), ["Method not allowed"]);
        assert.match(response.headers.get("allow")!, /^POST\b/);
      }
      // A PUT from a browser form is no page to link: JSON as well.
      const put = await svc.client.put(path, { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(put.status, 405, path);
      assert.deepEqual(errorsOf(put), ["Method not allowed"]);
    }
  });
});

Deno.test("a stored query's update endpoint opened in a browser links its edit page", async () => {
  await using svc = shopService({
    secret: "post-only",
    metadata: { permissions: { "store-query": { id: "writer" } } },
  });
  const stored = await svc.client.post("/shop/-/queries/store", {
    json: { query: { name: "cheap", sql: "select name from products where price < 5" } },
    headers: auth(svc),
  });
  assert.equal(stored.status, 201, stored.text);
  const page = await svc.client.get("/shop/cheap/-/update", {
    headers: { accept: BROWSER_ACCEPT, ...auth(svc) },
  });
  assert.equal(page.status, 405);
  assert.equal(page.headers.get("allow"), "POST");
  assert.ok(page.text.includes("endpoint that updates a stored query"), page.text);
  assert.ok(page.text.includes('<a href="/shop/cheap/-/edit">'));
  assert.equal((await svc.client.get("/shop/cheap/-/edit", { headers: auth(svc) })).status, 200);
  const api = await svc.client.get("/shop/cheap/-/update", { headers: auth(svc) });
  assert.equal(api.status, 405);
  assert.deepEqual(errorsOf(api), ["Method not allowed"]);
});
