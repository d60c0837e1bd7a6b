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

Deno.test("writeChanges: every record in order with the request's values, across full and partial chunks", () => {
  using conn = Connection.open(":memory:");
  // Five statements of 50 records, two of ten, one of eight.
  const records = Array.from({ length: 278 }, (_, i) => ({
    table: i % 2 ? "odd" : "even",
    pks: `[${i}]`,
    operation: (["insert", "update", "delete"] as const)[i % 3],
    before: i % 3 === 0 ? null : `{"id":${i},"v":"before ☃ \\"${i}\\""}`,
    after: i % 3 === 2 ? null : `{"id":${i},"v":${i}.0}`,
  }));
  const context = {
    database: "shop",
    actor: { id: 7, name: "ed" },
    time: "2026-11-29T00:00:00.000Z",
    request_id: "req",
    request: "POST /shop/-/revert",
    reverts: new Map([["odd\u0000[1]", 41], ["even\u0000[250]", 42]]),
  };
  writeChanges(conn, records, context);
  writeChanges(conn, records.slice(0, 3), { ...context, actor: null, reverts: undefined });
  const rows = conn.query(
    `select id, database_name, table_name, pks, operation, before, after, actor_id, actor, time,
      request_id, request, reverts from _vitrine_history order by id`,
  ).rows;
  assert.equal(rows.length, 281);
  assert.deepEqual(
    rows.slice(0, 278),
    records.map((record, i) => [
      i + 1,
      "shop",
      record.table,
      record.pks,
      record.operation,
      record.before,
      record.after,
      "7",
      '{"id":7,"name":"ed"}',
      "2026-11-29T00:00:00.000Z",
      "req",
      "POST /shop/-/revert",
      i === 1 ? 41 : i === 250 ? 42 : null,
    ]),
  );
  assert.deepEqual(rows[278].slice(7, 9), [null, null]);
  assert.deepEqual(rows.slice(278).map((row) => row[12]), [null, null, null]);
});

Deno.test("writeChanges: only a revert's records go into the reverts index, which still finds them", () => {
  using conn = Connection.open(":memory:");
  const records = Array.from({ length: 30 }, (_, i) => ({
    table: "t",
    pks: `[${i}]`,
    operation: "update" as const,
    before: `{"id":${i},"v":1}`,
    after: `{"id":${i},"v":2}`,
  }));
  const context = { database: "d", actor: null, time: "t", request_id: "r", request: null };
  writeChanges(conn, records, { ...context, reverts: new Map([["t\u0000[3]", 2]]) });
  const [[partial]] = conn.query(
    "select partial from pragma_index_list('_vitrine_history') where name = ?",
    ["_vitrine_history_reverts"],
  ).rows;
  assert.equal(partial, 1);
  const plan = conn.query(
    "explain query plan select min(id) from _vitrine_history where reverts = ?",
    [2],
  ).rows.map((row) => String(row.at(-1))).join("\n");
  assert.match(plan, /USING COVERING INDEX _vitrine_history_reverts/);
  assert.deepEqual(conn.query("select id from _vitrine_history where reverts = 2").rows, [[4]]);
});
