import assert from "node:assert/strict";
import { example, shopService } from "../fixtures/shop.ts";

async function withShop(fn: (svc: ReturnType<typeof shopService>) => Promise<void>) {
  await using svc = shopService();
  await fn(svc);
}

Deno.test("/-/settings.json lists every setting with the reference defaults", () =>
  withShop(async (svc) => {
    const response = await svc.client.get("/-/settings.json");
    const expected = example("45-settings.json");
    assert.equal(response.status, 200);
    const body = response.json();
    for (const [key, value] of Object.entries(expected.body as Record<string, unknown>)) {
      assert.deepEqual(body[key], value, key);
    }
  }));

Deno.test("/-/databases.json describes each attached database", () =>
  withShop(async (svc) => {
    const response = await svc.client.get("/-/databases.json");
    const { ok, databases: [entry] } = response.json();
    // 1.0's {"ok", "databases": [...]}; the spec's era answered the bare list (example 46).
    assert.equal(ok, true);
    const [expected] = example("46-databases.json").body as Record<string, unknown>[];
    assert.deepEqual(Object.keys(entry), Object.keys(expected));
    assert.equal(entry.name, "shop");
    assert.equal(entry.route, "shop");
    assert.match(entry.path, /shop\.db$/);
    assert.equal(entry.is_mutable, true);
    assert.equal(entry.hash, null);
    assert.equal(typeof entry.size, "number");
  }));

Deno.test("/-/actor.json is null for anonymous requests", () =>
  withShop(async (svc) => {
    const response = await svc.client.get("/-/actor.json");
    // 1.0 adds "ok": true to the spec era's {"actor": null}.
    assert.deepEqual(response.json(), { ok: true, ...example("47-actor.json").body as object });
  }));

Deno.test("/-/plugins.json is empty without plugins; ?all=1 shows the built-ins", () =>
  withShop(async (svc) => {
    assert.deepEqual((await svc.client.get("/-/plugins.json")).json(), []);
    const all = (await svc.client.get("/-/plugins.json?all=1")).json();
    assert.ok(all.length > 0);
    assert.ok(all.every((p: { name: string }) => p.name.startsWith("vitrine.")));
  }));

Deno.test("/-/versions.json reports Vitrine, Deno and SQLite versions", () =>
  withShop(async (svc) => {
    const body = (await svc.client.get("/-/versions.json")).json();
    assert.match(body.vitrine.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.deno.version, Deno.version.deno);
    assert.match(body.sqlite.version, /^3\.\d+\.\d+$/);
    assert.ok(body.sqlite.fts_versions.includes("FTS5"));
    assert.ok(body.sqlite.compile_options.includes("THREADSAFE=1"));
  }));

Deno.test("/-/metadata.json shows metadata with secret-looking values masked", async () => {
  await using svc = shopService({
    metadata: { title: "T", plugins: { p: { api_key: "hunter2", other: "shown" } } },
  });
  const body = (await svc.client.get("/-/metadata.json")).json();
  assert.equal(body.title, "T");
  assert.deepEqual(body.plugins.p, { api_key: "***", other: "shown" });
});

Deno.test("introspection pages also render as HTML", () =>
  withShop(async (svc) => {
    for (const path of ["/-/versions", "/-/settings", "/-/databases", "/-/plugins", "/-/actor"]) {
      const response = await svc.client.get(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type")!, /^text\/html/);
      assert.match(response.text, /default_page_size|sqlite|shop|\[\]|actor/, path);
    }
  }));

Deno.test("/-/threads needs permissions-debug", () =>
  withShop(async (svc) => {
    assert.equal((await svc.client.get("/-/threads.json")).status, 403);
  }));
