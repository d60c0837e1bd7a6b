import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/mod.ts";
import { trimChanges, writeChanges } from "../../../src/db/history/store.ts";

Deno.test("trimChanges: a history in memory over its budget loses its oldest changes first", () => {
  using conn = Connection.open(":memory:");
  const padding = "x".repeat(1000);
  const records = Array.from({ length: 2000 }, (_, i) => ({
    table: "t",
    pks: `[${i}]`,
    operation: "insert" as const,
    before: null,
    after: `{"id":${i},"pad":"${padding}"}`,
  }));
  const context = { database: "d", actor: null, time: "t", request_id: "r", request: null };
  writeChanges(conn, records, context);
  const used = () =>
    (Number(conn.query("pragma page_count").rows[0][0]) -
      Number(conn.query("pragma freelist_count").rows[0][0])) *
    Number(conn.query("pragma page_size").rows[0][0]);
  assert.ok(used() > 1_000_000);
  assert.equal(trimChanges(conn, 10_000_000), 0, "under the budget nothing goes");
  const dropped = trimChanges(conn, 1_000_000);
  assert.ok(dropped > 0 && dropped < 2000);
  assert.ok(used() <= 1_000_000);
  const [[oldest, newest, count]] = conn.query(
    "select min(id), max(id), count(*) from _vitrine_history",
  ).rows;
  assert.equal(newest, 2000);
  assert.equal(oldest, 2001 - Number(count));
});
