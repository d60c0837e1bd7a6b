import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";

function roundTrip(value: unknown): unknown {
  const conn = Connection.open(":memory:");
  try {
    conn.exec("create table t(v)");
    conn.run("insert into t values (?)", [value as never]);
    return conn.query("select v from t").rows[0][0];
  } finally {
    conn.close();
  }
}

Deno.test("integers round-trip exactly, big ones as bigint", () => {
  assert.equal(roundTrip(0), 0);
  assert.equal(roundTrip(-17), -17);
  assert.equal(roundTrip(2 ** 31), 2 ** 31);
  assert.equal(roundTrip(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  assert.equal(roundTrip(Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
  assert.equal(roundTrip(2n ** 53n + 1n), 9007199254740993n);
  assert.equal(roundTrip(9223372036854775807n), 9223372036854775807n);
  assert.equal(roundTrip(-9223372036854775808n), -9223372036854775808n);
  assert.equal(roundTrip(5n), 5, "a small bigint reads back as a number");
});

Deno.test("integers are stored as INTEGER, fractions as REAL", () => {
  const conn = Connection.open(":memory:");
  const { rows } = conn.query("select typeof(?), typeof(?), typeof(?), typeof(?)", [
    3,
    3.5,
    2 ** 60,
    true,
  ]);
  assert.deepEqual(rows, [["integer", "real", "real", "integer"]]);
  conn.close();
});

Deno.test("floats, booleans, null and undefined", () => {
  assert.equal(roundTrip(3.25), 3.25);
  assert.equal(roundTrip(-1e-300), -1e-300);
  assert.equal(roundTrip(1.5e300), 1.5e300);
  assert.equal(roundTrip(true), 1);
  assert.equal(roundTrip(false), 0);
  assert.equal(roundTrip(null), null);
  assert.equal(roundTrip(undefined), null);
  const conn = Connection.open(":memory:");
  assert.deepEqual(conn.query("select 43.0, 0.1 + 0.2").rows, [[43, 0.30000000000000004]]);
  conn.close();
});

Deno.test("text: unicode, empty, and embedded NUL", () => {
  for (const text of ["", "plain", "héllo wörld", "日本語テキスト", "emoji 🎉👍🏽", "a\0b", "\0"]) {
    assert.equal(roundTrip(text), text);
  }
  const conn = Connection.open(":memory:");
  assert.deepEqual(conn.query("select length(?), 'x' || char(0) || 'y'", ["🎉é"]).rows, [[
    2,
    "x\0y",
  ]]);
  conn.close();
});

Deno.test("blobs round-trip as copies", () => {
  const bytes = new Uint8Array([0, 1, 2, 255, 0, 128]);
  const back = roundTrip(bytes);
  assert.ok(back instanceof Uint8Array);
  assert.deepEqual([...back], [...bytes]);
  const empty = roundTrip(new Uint8Array(0));
  assert.ok(empty instanceof Uint8Array);
  assert.equal(empty.length, 0);
  const conn = Connection.open(":memory:");
  assert.deepEqual(conn.query("select typeof(?), hex(x'CAFE')", [bytes]).rows, [["blob", "CAFE"]]);
  conn.close();
});

Deno.test("positional parameters: ? and ?NNN", () => {
  const conn = Connection.open(":memory:");
  assert.deepEqual(conn.query("select ?, ?", ["a", 2]).rows, [["a", 2]]);
  assert.deepEqual(conn.query("select ?2, ?1, ?2", ["first", "second"]).rows, [[
    "second",
    "first",
    "second",
  ]]);
  assert.deepEqual(conn.query("select ?, ?", ["only one"]).rows, [["only one", null]]);
  conn.close();
});

Deno.test("named parameters with :, @ and $ prefixes; missing keys bind NULL", () => {
  const conn = Connection.open(":memory:");
  const { rows } = conn.query("select :a, @b, $c, :a, :missing", { a: 1, b: "two", c: 3.5 });
  assert.deepEqual(rows, [[1, "two", 3.5, 1, null]]);
  conn.close();
});

Deno.test("binding an unsupported type throws a TypeError", () => {
  const conn = Connection.open(":memory:");
  assert.throws(() => conn.query("select ?", [{} as never]), TypeError);
  conn.close();
});

Deno.test("text binds whole at any length, each value after the other intact", () => {
  const conn = Connection.open(":memory:");
  // Short text goes through a shared buffer, text longer than it on its own: both in one row,
  // so a value overwriting another's bytes would show.
  const long = "é".repeat(30_000) + "end";
  const values = ["", "a", "Zoë 🎉", long, "b\u0000c", "x".repeat(21_845), "y".repeat(21_846)];
  const { rows } = conn.query(
    `select ${values.map(() => "?, length(cast(? as blob))").join(", ")}`,
    values.flatMap((value) => [value, value]),
  );
  const expected = values.flatMap((value) => [value, new TextEncoder().encode(value).length]);
  assert.deepEqual(rows[0], expected);
  conn.close();
});
