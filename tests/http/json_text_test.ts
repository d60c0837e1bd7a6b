import assert from "node:assert/strict";
import { jsonText } from "../../src/http/json_text.ts";

Deno.test("bigint is written as an exact JSON number", () => {
  assert.equal(jsonText({ n: 9007199254740993n }), '{"n":9007199254740993}');
  assert.equal(jsonText([-9223372036854775808n]), "[-9223372036854775808]");
});

Deno.test("bytes become a $base64 object", () => {
  assert.equal(
    jsonText(new Uint8Array([104, 105, 0])),
    '{"$base64":true,"encoded":"aGkA"}',
  );
});

Deno.test("NaN and Infinity become null; undefined is skipped", () => {
  assert.equal(jsonText([NaN, Infinity, -Infinity, undefined]), "[null,null,null,null]");
  assert.equal(jsonText({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(jsonText(undefined), "null");
});

Deno.test("matches JSON.stringify for ordinary values", () => {
  const value = { s: 'q"\n\u2028é', n: 1.5, t: true, f: false, z: null, a: [1, { b: [] }], o: {} };
  assert.equal(jsonText(value), JSON.stringify(value));
  assert.equal(jsonText(value, { indent: 2 }), JSON.stringify(value, null, 2));
});

Deno.test("toJSON, String objects, Map and Set", () => {
  assert.equal(jsonText({ d: new Date(0) }), '{"d":"1970-01-01T00:00:00.000Z"}');
  assert.equal(jsonText(new String("safe")), '"safe"');
  assert.equal(jsonText(new Map([["k", 1n]])), '{"k":1}');
  assert.equal(jsonText(new Set([1, 2])), "[1,2]");
});
