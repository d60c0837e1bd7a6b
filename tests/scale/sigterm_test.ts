/**
 * A graceful stop: SIGTERM while 50 writes are in flight (each takes about 60 ms, so most are
 * usually still queued). Every write the server acknowledged is in the file, none is half there (each
 * writes two rows in one statement), the server refuses nothing it had accepted, and it exits 0.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import { startVitrine, waitFor } from "./processes.ts";
import { parsePrometheus, sumOf } from "./prometheus.ts";

const SLOW_PLUGIN = new URL("../fixtures/plugins/slow_sql.ts", import.meta.url).pathname;

const METADATA = {
  // Anyone may read the metrics here: the test polls them anonymously.
  permissions: { "view-metrics": true },
  databases: {
    data: {
      queries: {
        record: {
          sql: "insert into done (id, part) values (:id, 1), (:id, slow(2))",
          write: true,
        },
      },
    },
  },
};

Deno.test({
  name: "SIGTERM during 50 in-flight writes: every acknowledged write stored whole, exit 0",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-sigterm-" });
    const db = `${dir}/data.db`;
    const conn = Connection.open(db);
    conn.exec("create table done (id integer, part integer)");
    conn.close();
    await Deno.writeTextFile(`${dir}/metadata.json`, JSON.stringify(METADATA));
    const server = await startVitrine([db, "-m", `${dir}/metadata.json`, "--plugin", SLOW_PLUGIN]);
    try {
      const writes = Array.from({ length: 50 }, async (_, id) => {
        try {
          const response = await fetch(`${server.url}data/record`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify({ id }),
          });
          const body = await response.json();
          return { id, acknowledged: response.status === 200 && body.ok === true, body };
        } catch (error) {
          return { id, acknowledged: false, body: String(error) };
        }
      });
      // Once every write has reached the server (queued, running or done), stop it.
      let stillQueued = 0;
      await waitFor(async () => {
        const response = await fetch(`${server.url}-/metrics`);
        const metrics = parsePrometheus(await response.text());
        const queued = sumOf(metrics, "vitrine_write_queue_depth", { database: "data" });
        const answered = sumOf(metrics, "vitrine_http_requests_total", { method: "POST" });
        stillQueued = queued;
        return queued + answered >= 50;
      }, "the 50 writes to reach the server");
      server.kill("SIGTERM");
      // 50 writes of 60 ms each (3 s in all): usually most are still waiting when the signal
      // comes. On a loaded machine the requests reach the server slowly (each write holds its
      // thread for 60 ms) and fewer are left; the drain must still have had some to finish.
      assert.ok(stillQueued >= 1, `no write was queued at SIGTERM`);
      const results = await Promise.all(writes);
      const status = await server.status;
      assert.equal(status.code, 0, server.stderr());
      assert.match(server.stdout(), /Vitrine is stopping \(SIGTERM\)/);

      const stored = Connection.open(db, { mode: "ro" });
      let rows: Map<number, number>;
      try {
        rows = new Map(
          stored.query("select id, count(*) from done group by id").rows
            .map(([id, count]) => [Number(id), Number(count)]),
        );
      } finally {
        stored.close();
      }
      for (const { id, acknowledged, body } of results) {
        if (acknowledged) assert.equal(rows.get(id), 2, `acknowledged write ${id} stored whole`);
        else assert.ok(!rows.has(id) || rows.get(id) === 2, `write ${id}: ${body}`);
      }
      // They were all in flight when the signal came: the drain finished every one.
      assert.equal(results.filter((r) => r.acknowledged).length, 50);
      assert.equal(rows.size, 50);
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
