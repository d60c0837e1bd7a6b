import assert from "node:assert/strict";
import { serve } from "../../../src/app/server.ts";
import { fileRows, writeService } from "./_write_helpers.ts";

Deno.test({
  name: "50 concurrent inserts over HTTP, each with its own token, all land exactly once",
  // The server's listener closes at the end; Deno reports its op as it winds down.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using svc = writeService();
    const controller = new AbortController();
    let base = "";
    const server = await serve(svc, {
      port: 0,
      signal: controller.signal,
      onListen: (url) => (base = url),
    });
    try {
      const responses = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const token = svc.create_token("writer", {
            restrict_resource: { shop: { log: ["insert-row"] } },
          });
          const response = await fetch(`${base}/shop/log/-/insert`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ rows: [{ message: `job ${i}`, level: "batch" }] }),
          });
          return { status: response.status, body: await response.json() };
        }),
      );
      assert.deepEqual(
        responses.filter((r) => r.status !== 201),
        [],
        "every insert answered 201",
      );
      const landed = fileRows(svc, "select message from log where level = 'batch'")
        .map((row) => row.message as string)
        .sort();
      assert.deepEqual(landed, Array.from({ length: 50 }, (_, i) => `job ${i}`).sort());
      const count = await fetch(`${base}/shop/log.json?_extra=count&_size=1`);
      assert.equal((await count.json()).count, 53);
    } finally {
      controller.abort();
      await server.finished;
    }
  },
});
