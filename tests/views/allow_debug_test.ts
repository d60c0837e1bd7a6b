import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

const query = (actor: string, allow: string) =>
  `/-/allow-debug?${new URLSearchParams({ actor, allow })}`;

Deno.test("/-/allow-debug shows a form prefilled with an example", async () => {
  await using svc = shopService();
  const page = await svc.client.get("/-/allow-debug");
  assert.equal(page.status, 200);
  assert.match(page.text, /<form[^>]*method="get"/);
  assert.match(page.text, /name="allow"/);
  assert.match(page.text, /name="actor"/);
  assert.match(page.text, /Result: <strong>allowed<\/strong>/);
});

Deno.test("/-/allow-debug evaluates the pasted allow block against the pasted actor", async () => {
  await using svc = shopService();
  const allowed = await svc.client.get(query('{"id": "alice"}', '{"id": ["alice", "bob"]}'));
  assert.match(allowed.text, /Result: <strong>allowed<\/strong>/);
  const denied = await svc.client.get(query('{"id": "eve"}', '{"id": ["alice", "bob"]}'));
  assert.match(denied.text, /Result: <strong>denied<\/strong>/);
  const anonymous = await svc.client.get(query("null", '{"unauthenticated": true}'));
  assert.match(anonymous.text, /Result: <strong>allowed<\/strong>/);
  const roles = await svc.client.get(
    query('{"id": "x", "roles": ["staff"]}', '{"roles": ["staff", "admin"]}'),
  );
  assert.match(roles.text, /Result: <strong>allowed<\/strong>/);
  // The inputs come back pretty-printed in the textareas.
  assert.match(denied.text, /&quot;eve&quot;|"eve"/);
});

Deno.test("/-/allow-debug explains invalid JSON instead of failing", async () => {
  await using svc = shopService();
  const page = await svc.client.get(query("{not json", '{"id": "*"}'));
  assert.equal(page.status, 200);
  assert.match(page.text, /Actor JSON error/);
  assert.doesNotMatch(page.text, /Result:/);
  assert.match(page.text, /\{not json/);
  const both = await svc.client.get(query("[", "{"));
  assert.match(both.text, /Actor JSON error/);
  assert.match(both.text, /Allow JSON error/);
  const list = await svc.client.get(query("[1]", "true"));
  assert.match(list.text, /Actor must be a JSON object or null/);
});

Deno.test("/-/allow-debug answers JSON clients with the result or the errors", async () => {
  await using svc = shopService();
  const headers = { accept: "application/json" };
  const ok = await svc.client.get(query('{"id": "a"}', '{"id": "*"}'), { headers });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json(), {
    ok: true,
    result: true,
    actor: { id: "a" },
    allow: { id: "*" },
    errors: [],
  });
  const bad = await svc.client.get(query("{", "false"), { headers });
  assert.equal(bad.status, 400);
  const body = bad.json() as { ok: boolean; result: unknown; errors: string[] };
  assert.equal(body.ok, false);
  assert.equal(body.result, null);
  assert.match(body.errors[0], /Actor JSON error/);
});

Deno.test("/-/allow-debug is closed to those who may not view the instance", async () => {
  await using svc = shopService({ metadata: { allow: { id: "alice" } } });
  const page = await svc.client.get("/-/allow-debug");
  assert.equal(page.status, 403);
});
