/**
 * A PostgreSQL export that fails after its first lines went out aborts the body, as on SQLite
 * (tests/render/row_stream_test.ts): the client sees an incomplete download, never a 200 whose
 * last line is the error or that simply stops early as if it were whole.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, startCluster } from "../fixtures/pg_cluster.ts";
import { rawGet, served } from "../render/_raw_http.ts";

const HAVE_PG = pgAvailable("PostgreSQL stream failure test");

Deno.test({
  name: "PostgreSQL: an error mid-export aborts the streamed body, whatever the format",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startCluster();
    const original = console.error;
    console.error = () => {};
    try {
      await cluster.psql("create database shop");
      const svc = new Service({ postgres: [`shop=${cluster.url("shop")}`] });
      try {
        await svc.invoke_startup();
        await using server = await served(svc);
        // Row 15,000 of 20,000 divides by zero: long after the first chunk was sent.
        const sql = encodeURIComponent(
          "select g as i, 1 / (g - 15000) as v from generate_series(1, 20000) g",
        );
        for (const format of ["csv", "tsv", "ndjson"]) {
          const response = await rawGet(
            server.port,
            `/shop/-/query.${format}?sql=${sql}&_stream=on`,
          );
          assert.equal(response.status, 200, format);
          assert.equal(
            response.complete,
            false,
            `${format}: the body must end without its last chunk`,
          );
          assert.ok(response.text.length > 10_000, `${format}: the first rows went out first`);
          if (format === "ndjson") {
            // The reason may come as one more JSON line before the cut (as on SQLite), never as
            // a data line.
            const lines = response.text.slice(0, response.text.lastIndexOf("\n")).split("\n");
            const last = lines.at(-1)!;
            if (last.includes("error")) assert.match(JSON.parse(last).error, /division by zero/);
            for (const line of lines.slice(0, -1)) {
              assert.equal(typeof JSON.parse(line).i, "number");
            }
          } else assert.doesNotMatch(response.text, /division by zero/, format);
        }
        // The same query without the failing row is whole.
        const whole = encodeURIComponent("select g as i from generate_series(1, 20000) g");
        const ok = await rawGet(server.port, `/shop/-/query.csv?sql=${whole}&_stream=on`);
        assert.equal(ok.complete, true);
        assert.equal(ok.text.trimEnd().split("\r\n").length, 20_001);
      } finally {
        await svc.close();
      }
    } finally {
      console.error = original;
      await cluster.stop();
    }
  },
});
