import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";

Deno.test("scalar function: arguments and results of every type", () => {
  const conn = Connection.open(":memory:");
  conn.create_function("describe", 1, (value) => {
    if (value instanceof Uint8Array) return `blob:${value.length}`;
    return `${typeof value}:${String(value)}`;
  });
  const { rows } = conn.query(
    "select describe(1), describe(2.5), describe('é'), describe(null), describe(x'0102'), " +
      "describe(9223372036854775807)",
  );
  assert.deepEqual(rows, [[
    "number:1",
    "number:2.5",
    "string:é",
    "object:null",
    "blob:2",
    "bigint:9223372036854775807",
  ]]);
  conn.create_function("echo", 1, (value) => value, { deterministic: true });
  conn.create_function("truth", 0, () => true);
  conn.create_function("no_value", 0, () => undefined);
  conn.create_function("huge", 0, () => 2n ** 62n);
  const echoed = conn.query(
    "select echo(7), echo(1.25), echo('text'), echo(x'ff00'), truth(), no_value(), huge(), " +
      "typeof(echo(3))",
  ).rows[0];
  assert.deepEqual(echoed, [
    7,
    1.25,
    "text",
    new Uint8Array([255, 0]),
    1,
    null,
    2n ** 62n,
    "integer",
  ]);
  conn.close();
});

Deno.test("scalar function: variadic and wrong argument count", () => {
  const conn = Connection.open(":memory:");
  conn.create_function("total", -1, (...args) => args.reduce<number>((a, b) => a + Number(b), 0));
  assert.deepEqual(conn.query("select total(), total(1, 2, 3)").rows, [[0, 6]]);
  conn.create_function("one", 1, () => 1);
  assert.throws(() => conn.query("select one(1, 2)"), {
    message: "wrong number of arguments to function one()",
  });
  conn.close();
});

Deno.test("scalar function: a JS exception becomes the SQL error message", () => {
  const conn = Connection.open(":memory:");
  conn.create_function("boom", 0, () => {
    throw new Error("boom from js");
  });
  assert.throws(() => conn.query("select boom()"), {
    name: "SqliteError",
    message: "boom from js",
  });
  conn.create_function("later", 0, () => Promise.resolve(1));
  assert.throws(() => conn.query("select later()"), /returned a Promise/);
  assert.deepEqual(conn.query("select 1").rows, [[1]]);
  conn.close();
});

class Joiner {
  parts: string[] = [];
  step(value: unknown) {
    if (value !== null) this.parts.push(String(value));
  }
  finalize() {
    return this.parts.join("|");
  }
}

Deno.test("aggregate: one instance per group, empty input still finalizes", () => {
  const conn = Connection.open(":memory:");
  conn.exec(`create table t(g, v); insert into t values
    ('a', 1), ('b', 2), ('a', 3), ('b', null), ('c', 'x');`);
  conn.create_aggregate("joined", 1, Joiner);
  assert.deepEqual(conn.query("select g, joined(v) from t group by g order by g").rows, [
    ["a", "1|3"],
    ["b", "2"],
    ["c", "x"],
  ]);
  assert.deepEqual(conn.query("select joined(v) from t where 0").rows, [[""]]);
  // Used twice in one query, each call keeps its own state.
  assert.deepEqual(conn.query("select joined(g), joined(v) from t where g = 'a'").rows, [
    ["a|a", "1|3"],
  ]);
  conn.close();
});

Deno.test("aggregate: errors in step or finalize become SQL errors", () => {
  const conn = Connection.open(":memory:");
  conn.exec("create table t(v); insert into t values (1), (2), (3);");
  class FailsOnTwo {
    step(value: unknown) {
      if (value === 2) throw new Error("step failed on 2");
    }
    finalize() {
      return 0;
    }
  }
  class FailsAtEnd {
    step() {}
    finalize(): number {
      throw new Error("finalize failed");
    }
  }
  conn.create_aggregate("fails_on_two", 1, FailsOnTwo);
  conn.create_aggregate("fails_at_end", 1, FailsAtEnd);
  assert.throws(() => conn.query("select fails_on_two(v) from t"), { message: "step failed on 2" });
  assert.throws(() => conn.query("select fails_at_end(v) from t"), { message: "finalize failed" });
  conn.create_aggregate("joined", 1, Joiner);
  assert.deepEqual(conn.query("select joined(v) from t").rows, [["1|2|3"]]);
  conn.close();
});

Deno.test("collation orders and compares with the JS function", () => {
  const conn = Connection.open(":memory:");
  conn.exec("create table t(name); insert into t values ('b'), ('A'), ('c'), ('é'), ('a');");
  conn.create_collation("reverse_nocase", (a, b) => b.toLowerCase().localeCompare(a.toLowerCase()));
  assert.deepEqual(
    conn.query("select name from t order by name collate reverse_nocase, name").rows.flat(),
    ["é", "c", "b", "A", "a"],
  );
  assert.deepEqual(conn.query("select 'X' = 'x' collate reverse_nocase").rows, [[1]]);
  conn.close();
});

Deno.test("functions are per connection and closing frees them", () => {
  const first = Connection.open(":memory:");
  const second = Connection.open(":memory:");
  first.create_function("only_here", 0, () => 1);
  assert.throws(() => second.query("select only_here()"), {
    message: "no such function: only_here",
  });
  first.close();
  second.close();
});
