import assert from "node:assert/strict";
import { MultiParams } from "../../src/http/multi_params.ts";

const args = () => new MultiParams("foo=1&foo=2&bar=3");

Deno.test("indexing gives the first value", () => {
  assert.equal(args()["foo"], "1");
  assert.equal(args()["bar"], "3");
});

Deno.test("indexing a missing key throws KeyError", () => {
  assert.throws(() => args()["missing"], { name: "KeyError" });
});

Deno.test("get returns the first value or the default", () => {
  assert.equal(args().get("foo"), "1");
  assert.equal(args().get("missing"), null);
  assert.equal(args().get("missing", "x"), "x");
});

Deno.test("getlist returns all values, or an empty list", () => {
  assert.deepEqual(args().getlist("foo"), ["1", "2"]);
  assert.deepEqual(args().getlist("missing"), []);
});

Deno.test("keys, membership, iteration and length", () => {
  const a = args();
  assert.deepEqual(a.keys(), ["foo", "bar"]);
  const has = (key: string) => key in a;
  assert.ok(has("foo"));
  assert.ok(!has("baz"));
  assert.ok(!has("get"), "method names are not keys");
  assert.deepEqual([...a], ["foo", "bar"]);
  assert.equal(a.length, 2);
});

Deno.test("blank values are kept and + decodes to a space", () => {
  const a = new MultiParams("?empty=&q=hello+world%21");
  assert.equal(a.get("empty"), "");
  assert.equal(a.get("q"), "hello world!");
});

Deno.test("builds from URLSearchParams, objects and pairs", () => {
  assert.deepEqual(new MultiParams(new URLSearchParams("a=1&a=2")).getlist("a"), ["1", "2"]);
  const fromObject = new MultiParams({ a: ["1", "2"], b: "3" });
  assert.deepEqual(fromObject.getlist("a"), ["1", "2"]);
  assert.equal(fromObject["b"], "3");
  assert.deepEqual(new MultiParams([["x", "1"], ["x", "2"]]).getlist("x"), ["1", "2"]);
});

Deno.test("toString urlencodes every pair", () => {
  assert.equal(String(args()), "foo=1&foo=2&bar=3");
  assert.equal(new MultiParams({ q: "a b&c" }).toString(), "q=a+b%26c");
});

Deno.test("can be awaited and JSON-stringified without KeyError", async () => {
  const a = args();
  assert.equal(await Promise.resolve(a), a);
  assert.equal(typeof JSON.stringify(a), "string");
});
