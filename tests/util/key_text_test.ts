/** Key values written as text in URLs: BLOBs as `$x<hex>`, numbers read back from text. */
import assert from "node:assert/strict";
import { blobFromKeyText, blobKeyText, numberFromText } from "../../src/util/key_text.ts";

Deno.test("a BLOB key is $x and its hex, and reads back", () => {
  assert.equal(blobKeyText(new Uint8Array([0, 0x7f, 0xff])), "$x007fff");
  assert.equal(blobKeyText(new Uint8Array()), "$x");
  assert.deepEqual(blobFromKeyText("$x007fff"), new Uint8Array([0, 0x7f, 0xff]));
  assert.deepEqual(blobFromKeyText("$x"), new Uint8Array());
  for (const part of ["$x0", "$xzz", "$X00", "x00", "~24x00", "$x00,"]) {
    assert.equal(blobFromKeyText(part), null, part);
  }
});

Deno.test("numberFromText: integers exact up to 64 bits, REALs beyond, other text null", () => {
  assert.equal(numberFromText("7"), 7);
  assert.equal(numberFromText("-2.5"), -2.5);
  assert.equal(numberFromText("1e3"), 1000);
  assert.equal(numberFromText("9223372036854775807"), 9223372036854775807n);
  assert.equal(numberFromText("-9223372036854775808"), -9223372036854775808n);
  assert.equal(numberFromText("9223372036854775808"), 9223372036854775808);
  for (const text of ["", "abc", "1,2", "0x10", "1e999", " 7", "Infinity", "NaN", "+7"]) {
    assert.equal(numberFromText(text), null, text);
  }
});
