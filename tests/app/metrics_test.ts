/**
 * `/-/metrics`: who may read it, and that it parses as the Prometheus text format with the
 * numbers a user would expect after a few requests.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { serve } from "../../src/app/server.ts";
import { buildShopDb, shopService } from "../fixtures/shop.ts";
import { parsePrometheus, sumOf, valueOf } from "../scale/prometheus.ts";

Deno.test("/-/metrics needs view-metrics: anonymous 403, root and a scraper token 200", async () => {
  await using svc = shopService({ root: true, secret: "s" });
  const anonymous = await svc.client.get("/-/metrics");
  assert.equal(anonymous.status, 403);
  const root = await svc.client.get("/-/metrics", {
    cookies: { ds_actor: svc.sign({ a: { id: "root" } }, "actor") },
  });
  assert.equal(root.status, 200);
  assert.equal(root.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  // A token restricted to view-metrics, as a Prometheus scrape config would carry.
  const token = svc.create_token("root", { restrict_all: ["view-metrics"] });
  const scraper = await svc.client.get("/-/metrics", {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(scraper.status, 200);
  parsePrometheus(scraper.text);
});

Deno.test("metadata can open /-/metrics to anyone", async () => {
  await using svc = new Service({
    files: [buildShopDb()],
    metadata: { permissions: { "view-metrics": true } },
  });
  const response = await svc.client.get("/-/metrics");
  assert.equal(response.status, 200);
});

Deno.test("the metrics count requests by kind and status, SQL time, cache use and queues", async () => {
  const shop = buildShopDb();
  await using svc = new Service({
    files: [shop],
    immutables: [buildShopDb(Deno.makeTempDirSync())],
    metadata: { permissions: { "view-metrics": true } },
    settings: { num_sql_threads: 1 },
  });
  // shop.db is mutable, the second copy (named shop_2) immutable: its pages use the cache.
  for (let i = 0; i < 3; i++) {
    assert.equal((await svc.client.get("/shop/products.json")).status, 200);
    assert.equal((await svc.client.get("/shop_2/products.json")).status, 200);
  }
  assert.equal((await svc.client.get("/shop/nope")).status, 404);
  assert.equal((await svc.client.get("/no/such/page/here/at/all")).status, 404);
  const metrics = parsePrometheus((await svc.client.get("/-/metrics")).text);

  assert.equal(metrics.get("vitrine_http_requests_total")?.type, "counter");
  assert.equal(
    valueOf(metrics, "vitrine_http_requests_total", { kind: "table", status: "200" }),
    6,
  );
  assert.equal(
    sumOf(metrics, "vitrine_http_requests_total", { kind: "table", status: "404" }),
    1,
  );
  assert.equal(metrics.get("vitrine_http_request_duration_seconds")?.type, "histogram");
  assert.equal(
    valueOf(metrics, "vitrine_http_request_duration_seconds_count", { kind: "table" }),
    7,
  );
  assert.ok(valueOf(metrics, "vitrine_sql_duration_seconds_count", { database: "shop" }) >= 3);
  assert.ok(valueOf(metrics, "vitrine_sql_duration_seconds_sum", { database: "shop" }) > 0);
  // Each table page ran its queries (the query cache missed), was kept the second time it was
  // asked for, and the third was answered from the page cache without running its view.
  assert.ok(valueOf(metrics, "vitrine_query_cache_misses_total") >= 1);
  assert.equal(valueOf(metrics, "vitrine_page_cache_hits_total"), 2);
  assert.equal(valueOf(metrics, "vitrine_page_cache_entries"), 2);
  assert.ok(valueOf(metrics, "vitrine_page_cache_bytes") > 0);
  assert.equal(valueOf(metrics, "vitrine_write_queue_depth", { database: "shop" }), 0);
  assert.equal(valueOf(metrics, "vitrine_read_pool_queue_length"), 0);
  assert.equal(valueOf(metrics, "vitrine_read_pool_workers_busy"), 0);
  assert.ok(valueOf(metrics, "vitrine_read_pool_workers") >= 1);
  // The scrape itself is the one request in flight.
  assert.equal(valueOf(metrics, "vitrine_http_requests_in_flight"), 1);
  assert.equal(valueOf(metrics, "vitrine_ready", { phase: "ready" }), 1);
  // The process's memory, and SQLite's share of it: the connections and their cached pages.
  const rss = valueOf(metrics, "process_resident_memory_bytes");
  assert.ok(rss > 20e6 && rss < 4e9, `${rss}`);
  const sqlite = valueOf(metrics, "vitrine_sqlite_memory_bytes");
  assert.ok(sqlite > 0 && sqlite < rss, `${sqlite}`);
  if (Deno.build.os === "linux") {
    // Standard streams and two opened database files at least (test files running beside this
    // one share the process, so the exact count moves).
    const fds = valueOf(metrics, "process_open_fds");
    assert.ok(fds >= 5, `${fds}`);
  }
});

Deno.test("writes show in the write metrics; a real server reports its open connections", async () => {
  const controller = new AbortController();
  await using svc = new Service({
    files: [buildShopDb()],
    metadata: { permissions: { "view-metrics": true } },
  });
  const server = await serve(svc, { port: 0, signal: controller.signal });
  try {
    const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
    const db = svc.get_database("shop");
    await Promise.all(
      Array.from(
        { length: 5 },
        (_, i) => db.execute_write("insert into categories (name) values (?)", [`c${i}`]),
      ),
    );
    const text = await (await fetch(`${url}/-/metrics`)).text();
    const metrics = parsePrometheus(text);
    assert.equal(
      valueOf(metrics, "vitrine_sql_duration_seconds_count", {
        database: "shop",
        kind: "write",
      }),
      5,
    );
    assert.equal(
      valueOf(metrics, "vitrine_write_lock_wait_seconds_count", { database: "shop" }),
      5,
    );
    if (Deno.build.os === "linux") {
      // At least the scrape's own connection.
      assert.ok(valueOf(metrics, "vitrine_http_connections_open") >= 1, text);
    }
  } finally {
    controller.abort();
    await server.finished;
  }
});
