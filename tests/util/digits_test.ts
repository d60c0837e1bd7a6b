import assert from "node:assert/strict";
import { writeDigits } from "../../src/util/digits.ts";

Deno.test("writeDigits writes what String() writes, for every magnitude that fits in 31 bits", () => {
  const out = new Uint8Array(16);
  const values = [0, -0, 1, -1, 9, 10, -10, 99, 100, 2147483647, -2147483647, 1000000000];
  for (let i = 0; i < 2000; i++) values.push(Math.floor((Math.random() * 2 - 1) * 2147483647));
  for (const value of values) {
    const end = writeDigits(out, 3, value);
    assert.equal(new TextDecoder().decode(out.subarray(3, end)), String(value));
  }
});
