/** `/-/health` (readiness) and `/-/health/live` (liveness) through a starting, ready and draining server. */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { drain, serve } from "../../src/app/server.ts";
import { buildShopDb } from "../fixtures/shop.ts";
import { sqliteConnection } from "../../src/db/engine.ts";

const GATE_PLUGIN = new URL("../fixtures/plugins/startup_gate.ts", import.meta.url).href;

Deno.test("readiness is 503 while starting and draining, 200 when ready; liveness stays 200", async () => {
  const { releaseStartup } = await import(GATE_PLUGIN);
  const svc = new Service({ files: [buildShopDb()], plugins: [GATE_PLUGIN] });
  let url = "";
  const serving = serve(svc, { port: 0, onListen: (listening) => url = listening });
  try {
    while (!url) await new Promise((resolve) => setTimeout(resolve, 10));
    const starting = await fetch(`${url}/-/health`);
    assert.equal(starting.status, 503);
    assert.deepEqual(await starting.json(), { ok: false, status: "starting" });
    const alive = await fetch(`${url}/-/health/live`);
    assert.deepEqual([alive.status, await alive.json()], [200, { ok: true, status: "alive" }]);

    releaseStartup();
    const server = await serving;
    const ready = await fetch(`${url}/-/health`);
    assert.deepEqual([ready.status, await ready.json()], [200, { ok: true, status: "ready" }]);
    assert.equal(ready.headers.get("cache-control"), "no-store");
    const head = await fetch(`${url}/-/health`, { method: "HEAD" });
    assert.equal(head.status, 200);

    // Draining (SIGTERM): readiness fails at once while the server still answers.
    const stopped = drain(svc, server, { delayMs: 300, timeoutMs: 5000 });
    const draining = await fetch(`${url}/-/health`);
    assert.deepEqual(
      [draining.status, await draining.json()],
      [503, { ok: false, status: "draining" }],
    );
    const page = await fetch(`${url}/shop.json`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("connection"), "close");
    await page.body?.cancel();
    const live = await fetch(`${url}/-/health/live`);
    assert.equal(live.status, 200);
    await live.body?.cancel();
    assert.equal(await stopped, true);
  } finally {
    releaseStartup();
    await svc.close();
  }
});

Deno.test("health checks answer under base_url too, without a permission", async () => {
  await using svc = new Service({
    files: [buildShopDb()],
    settings: { base_url: "/data/" },
    metadata: { allow: { id: "nobody" } },
  });
  // Nothing has started the service yet.
  assert.equal((await svc.client.get("/data/-/health")).status, 503);
  await svc.invoke_startup();
  for (const path of ["/-/health", "/data/-/health", "/data/-/health/live"]) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 200, path);
  }
  assert.equal((await svc.client.get("/data/")).status, 403);
});

Deno.test("drain waits for a slow request, and says when the time limit ran out", async () => {
  await using svc = new Service({ files: [buildShopDb()] });
  const server = await serve(svc, { port: 0 });
  const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  // A write that holds the queue for 400 ms, then a request behind it.
  const db = svc.get_database("shop");
  const slow = db.execute_write_fn(async (conn) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    sqliteConnection(conn).run("insert into categories (name) values ('late')");
  });
  const inFlight = fetch(`${url}/shop/categories.json?_shape=array&_size=max`);
  while (svc.lifecycle.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(await drain(svc, server, { delayMs: 0, timeoutMs: 5000 }), true);
  const response = await inFlight;
  assert.equal(response.status, 200);
  await response.body?.cancel();
  await slow;
  assert.equal(
    (await db.execute("select count(*) from categories where name = 'late'")).single_value(),
    1,
  );

  await using other = new Service({ files: [buildShopDb()] });
  const second = await serve(other, { port: 0 });
  const stuck = other.get_database("shop").execute_write_fn(async () => {
    await new Promise((resolve) => setTimeout(resolve, 600));
  });
  assert.equal(await drain(other, second, { delayMs: 0, timeoutMs: 100 }), false);
  await stuck;
});
