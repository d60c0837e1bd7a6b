import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";

function one(sql: string, params?: unknown[]): unknown[] {
  using conn = Connection.open(":memory:");
  return conn.query(sql, params as never).rows[0];
}

Deno.test("-0 binds as a REAL and keeps its sign; NaN becomes NULL; infinities survive", () => {
  const [negZero, type, nan, nanType, inf, negInf] = one(
    "select ?1, typeof(?1), ?2, typeof(?2), ?3, ?4",
    [-0, NaN, Infinity, -Infinity],
  );
  assert.ok(Object.is(negZero, -0));
  assert.equal(type, "real");
  assert.equal(nan, null);
  assert.equal(nanType, "null");
  assert.equal(inf, Infinity);
  assert.equal(negInf, -Infinity);
  assert.deepEqual(one("select typeof(?)", [0]), ["integer"]);
});

Deno.test("bigints outside 64 bits are refused instead of silently wrapping", () => {
  using conn = Connection.open(":memory:");
  assert.throws(() => conn.query("select ?", [2n ** 63n]), RangeError);
  assert.throws(() => conn.query("select ?", [-(2n ** 63n) - 1n]), RangeError);
  assert.deepEqual(conn.query("select ?, ?", [2n ** 63n - 1n, -(2n ** 63n)]).rows, [[
    9223372036854775807n,
    -9223372036854775808n,
  ]]);
  // The statement of the failed bind was finalized: the connection closes cleanly and stays
  // usable until then.
  assert.deepEqual(conn.query("select 1").rows, [[1]]);
});

Deno.test("UTF-8: 4-byte characters, lone surrogates, invalid bytes with NUL", () => {
  const emoji = "👩‍👩‍👧 𝄞 🎉";
  assert.deepEqual(one("select ?, length(?), length(cast(? as blob))", [emoji, "🎉", "🎉"]), [
    emoji,
    1,
    4,
  ]);
  // A lone surrogate cannot be UTF-8: it is bound as U+FFFD (what TextEncoder does).
  assert.deepEqual(one("select ?, hex(?)", ["a\uD800b", "\uDC00"]), ["a\uFFFDb", "EFBFBD"]);
  // Invalid UTF-8 around a NUL: every byte is accounted for, not cut at the NUL.
  assert.deepEqual(one("select cast(x'ff00fe' as text)"), ["\uFFFD\0\uFFFD"]);
  assert.deepEqual(one("select cast(x'41004200' as text)"), ["A\0B\0"]);
});

Deno.test("empty string, empty blob and NULL stay distinct", () => {
  const [text, textType, blob, blobType, nul] = one(
    "select ?1, typeof(?1), ?2, typeof(?2), ?3",
    ["", new Uint8Array(0), null],
  );
  assert.equal(text, "");
  assert.equal(textType, "text");
  assert.ok(blob instanceof Uint8Array && blob.length === 0);
  assert.equal(blobType, "blob");
  assert.equal(nul, null);
});

Deno.test("booleans, ?NNN and named parameters of every prefix", () => {
  assert.deepEqual(one("select ?, ?", [true, false]), [1, 0]);
  assert.deepEqual(one("select ?3, ?1", ["a", "b", "c"]), ["c", "a"]);
  using conn = Connection.open(":memory:");
  assert.deepEqual(
    conn.query("select @x, $y, :z, @x", { x: "at", y: "dollar", z: "colon" }).rows,
    [["at", "dollar", "colon", "at"]],
  );
});

Deno.test("user functions: -0 and out-of-range bigint results", () => {
  using conn = Connection.open(":memory:");
  conn.create_function("neg_zero", 0, () => -0);
  conn.create_function("too_big", 0, () => 2n ** 64n);
  assert.ok(Object.is(conn.query("select neg_zero()").rows[0][0], -0));
  assert.throws(() => conn.query("select too_big()"), /does not fit in 64 bits/);
});
