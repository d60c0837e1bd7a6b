/**
 * The table guard (`src/sqlite/table_guard.ts`, `Connection.guardTables`): its authorizer is
 * installed once per connection and kept, so guarded writes leave the connection's compiled
 * statements alone, while every statement run inside the guard is still judged by it — one kept
 * from before the guard, or one compiled after the visitor authorizer took the guard's place.
 */
import assert from "node:assert/strict";
import { Connection, SqliteError } from "../../src/sqlite/mod.ts";
import type { GuardReport } from "../../src/sqlite/table_guard.ts";
import { VISITOR_LIMITS } from "../../src/sqlite/guard.ts";

const PROTECTED: ReadonlySet<string> = new Set(["secret"]);
const VISITOR = { ...VISITOR_LIMITS, length: 1_000_000 };

function freshReport(): GuardReport {
  return { refused: null, made: [], alters: 0, redefined: [] };
}

function openWithTables(): Connection {
  const conn = Connection.open(":memory:");
  conn.exec("create table secret (a); create table open_t (a)");
  return conn;
}

/** Runs `fn` guarded; returns the report, asserting that `fn` failed exactly when refused. */
function guarded(conn: Connection, fn: () => unknown): GuardReport {
  const report = freshReport();
  try {
    conn.guardTables(PROTECTED, report, fn);
    assert.equal(report.refused, null, "a refusal must make the statement fail");
  } catch (error) {
    assert.ok(error instanceof SqliteError, String(error));
    assert.match(error.message, /not authorized/);
    assert.equal(report.refused, "secret");
  }
  return report;
}

function count(conn: Connection, table: string): number {
  return Number(conn.query(`select count(*) from ${table}`).rows[0][0]);
}

Deno.test("table guard: guarded writes leave the connection's compiled statements as they are", () => {
  using conn = openWithTables();
  const kept = conn.prepare("select count(*) from open_t");
  assert.equal(kept.step(), true);
  kept.reset();
  for (let i = 0; i < 3; i++) {
    guarded(conn, () => conn.query("insert into open_t values (?)", [i]));
    assert.equal(kept.step(), true);
    assert.equal(kept.values()[0], i + 1);
    kept.reset();
  }
  // Installing the guard's authorizer, on the first guarded call, expired it once; setting one
  // around each write expired it each time (3).
  assert.equal(kept.recompiles, 1);
  kept.finalize();
});

Deno.test("table guard: a statement kept from outside the guard is compiled again inside it", () => {
  using conn = openWithTables();
  const forge = "insert into secret values (1)";
  // The application itself may write the table, and query() keeps that statement...
  conn.query(forge);
  guarded(conn, () => conn.query("insert into open_t values (1)"));
  conn.query(forge);
  assert.equal(count(conn, "secret"), 2);
  // ...which the same SQL text run inside the guard must not reuse.
  const report = guarded(conn, () => conn.query(forge));
  assert.equal(report.refused, "secret");
  assert.equal(count(conn, "secret"), 2);
  // And the reverse: a statement compiled under the guard is not taken for the application's.
  guarded(conn, () => conn.query("select count(*) from secret"));
  conn.query(forge);
  assert.equal(count(conn, "secret"), 3);
});

Deno.test("table guard: after the visitor authorizer had the connection, it is on again", () => {
  using conn = openWithTables();
  guarded(conn, () => conn.query("insert into open_t values (1)"));
  // Visitor SQL on the same connection (a private memory database reads on its write connection).
  assert.deepEqual(conn.restricted(() => conn.query("select count(*) from open_t").rows, VISITOR), [
    [1],
  ]);
  const report = guarded(conn, () => conn.run("insert into secret values (1)"));
  assert.equal(report.refused, "secret");
  assert.equal(count(conn, "secret"), 0);
  // Between guarded calls the application writes as it likes.
  conn.run("insert into secret values (1)");
  assert.equal(count(conn, "secret"), 1);
});

Deno.test("table guard: visitor work inside guarded work is refused, not run unguarded", () => {
  using conn = openWithTables();
  assert.throws(
    () =>
      conn.guardTables(
        PROTECTED,
        freshReport(),
        () => conn.restricted(() => conn.query("select 1"), VISITOR),
      ),
    /restricted\(\) inside guardTables\(\)/,
  );
  const report = guarded(conn, () => conn.exec("insert into secret values (1)"));
  assert.equal(report.refused, "secret");
  assert.equal(count(conn, "secret"), 0);
});

Deno.test("table guard: schema changes are judged again after being kept", () => {
  using conn = openWithTables();
  const report = guarded(conn, () => {
    conn.exec("create trigger copy after insert on open_t begin select 1; end");
    conn.query("alter table open_t rename to open_u");
  });
  assert.deepEqual(report.made, ["copy"]);
  assert.equal(report.alters, 1);
  // The same ALTER text once more, kept by query(): SQLite compiles it again for the new schema,
  // so the guard sees the second rename as well.
  conn.exec("alter table open_u rename to open_t");
  const again = guarded(conn, () => conn.query("alter table open_t rename to open_u"));
  assert.equal(again.alters, 1);
});

Deno.test("table guard: a borrowed statement kept from outside the guard is not lent inside it", () => {
  using conn = openWithTables();
  const forge = "insert into secret values (1)";
  const outside = conn.borrow(forge);
  while (outside.step()) { /* no rows */ }
  conn.giveBack(outside);
  const report = guarded(conn, () => {
    const inside = conn.borrow(forge);
    conn.giveBack(inside);
  });
  assert.equal(report.refused, "secret");
  assert.equal(count(conn, "secret"), 1);
  // A statement compiled under the guard goes back under it, and only comes out under it.
  const allowed = "insert into open_t values (2)";
  let lent: unknown;
  guarded(conn, () => {
    const inside = conn.borrow(allowed);
    lent = inside;
    conn.giveBack(inside);
  });
  const unguarded = conn.borrow(allowed);
  assert.notEqual(unguarded, lent);
  conn.giveBack(unguarded);
  guarded(conn, () => assert.equal(conn.borrow(allowed), lent));
});
