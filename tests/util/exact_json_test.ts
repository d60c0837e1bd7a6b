import assert from "node:assert/strict";
import { exactJsonText, JsonReal, parseExactJson, realText } from "../../src/util/exact_json.ts";

Deno.test("parseExactJson keeps big integers exact and marks whole floats as reals", () => {
  const parsed = parseExactJson(
    '{"small": 42, "big": 12345678901234567890, "negative": -9007199254740993, ' +
      '"real": 1.0, "exp": 2e3, "fraction": 0.5, "list": [1, 1.50]}',
  ) as Record<string, unknown>;
  assert.equal(parsed.small, 42);
  assert.equal(parsed.big, 12345678901234567890n);
  assert.equal(parsed.negative, -9007199254740993n);
  assert.deepEqual(parsed.real, new JsonReal(1));
  assert.deepEqual(parsed.exp, new JsonReal(2000));
  assert.equal(parsed.fraction, 0.5);
  assert.deepEqual(parsed.list, [1, 1.5]);
  assert.throws(() => parseExactJson("{bad"), SyntaxError);
});

Deno.test("exactJsonText writes back what was parsed", () => {
  const text = '{"a":[1.0,9007199254740993,0.25,"x",null,true],"b":{"c":2e3}}';
  assert.equal(
    exactJsonText(parseExactJson(text)),
    '{"a":[1.0,9007199254740993,0.25,"x",null,true],"b":{"c":2000.0}}',
  );
  assert.equal(realText(3), "3.0");
  assert.equal(realText(1e21), "1e+21");
  assert.equal(realText(-0.5), "-0.5");
});

Deno.test("texts without big integers, whole floats or exponents parse the plain way, alike", () => {
  const plain = '{"a": 1, "b": 2.5, "c": "1.0 as text is still text", "d": [10.05, -3]}';
  assert.deepEqual(parseExactJson(plain), JSON.parse(plain));
  assert.deepEqual(parseExactJson('{"n": 1234567890123456}'), { n: 1234567890123456 });
  assert.deepEqual(parseExactJson('{"n": 2.50, "m": 1.00}'), { n: 2.5, m: new JsonReal(1) });
  assert.deepEqual(parseExactJson("[1.5e3]"), [new JsonReal(1500)]);
});
