/**
 * Error responses never show a stack trace or a server file path, in HTML or JSON, whether the
 * error comes from a view, a plugin hook or a plugin route.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";
import { quietly } from "../fixtures/quietly.ts";

const SECRET_PATH = "/srv/vitrine/plugins/private/boom.ts";

function assertNoInternals(text: string, where: string): void {
  assert.doesNotMatch(text, /\/srv\/vitrine|file:\/\//, `${where} leaks a path: ${text}`);
  assert.doesNotMatch(text, /\bat \S+ \(|\.ts:\d+:\d+/, `${where} leaks a stack: ${text}`);
}

function failingService(): Service {
  const svc = shopService();
  svc.pm.register({
    render_cell() {
      throw new Error(`cannot read ${SECRET_PATH}`);
    },
    register_routes() {
      return [[/^\/-\/explode$/, () => {
        throw new Error(`failed at file://${SECRET_PATH}:12:3`);
      }]];
    },
  }, { name: "test-failing-plugin" });
  return svc;
}

Deno.test("a 500 from a plugin hook shows the message without paths or stack, HTML and JSON", async () => {
  await using svc = failingService();
  await quietly(async () => {
    const page = await svc.client.get("/shop/products");
    assert.equal(page.status, 500);
    assert.match(page.text, /cannot read \[path\]/);
    assertNoInternals(page.text, "HTML 500");
    const route = await svc.client.get("/-/explode", {
      headers: { accept: "application/json" },
    });
    assert.equal(route.status, 500);
    const body = route.json();
    assert.equal(body.ok, false);
    assert.equal(body.error, "failed at [path]");
    assertNoInternals(route.text, "JSON 500");
  });
});

Deno.test("handle_exception hooks still receive the original exception", async () => {
  await using svc = failingService();
  const seen: string[] = [];
  svc.pm.register({
    handle_exception({ exception }: { exception: Error }) {
      seen.push(exception.message);
      return null;
    },
  }, { name: "test-exception-spy" });
  const response = await quietly(() => svc.client.get("/-/explode"));
  assert.equal(response.status, 500);
  assert.deepEqual(seen, [`failed at file://${SECRET_PATH}:12:3`]);
});

Deno.test("client errors keep their messages: only server errors lose file paths", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop.json?sql=select+*+from+%22/etc/a/b%22");
  assert.equal(response.status, 400);
  assert.match(response.json().error, /\/etc\/a\/b/);
});
