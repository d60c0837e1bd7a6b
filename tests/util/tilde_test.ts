import assert from "node:assert/strict";
import {
  pathFromRowPks,
  rowPathOf,
  rowPathValues,
  splitRowPath,
  tilde_decode,
  tilde_encode,
} from "../../src/util/tilde.ts";

Deno.test("tilde_encode maps the spec's examples", () => {
  assert.equal(tilde_encode("/"), "~2F");
  assert.equal(tilde_encode("."), "~2E");
  assert.equal(tilde_encode("%"), "~25");
  assert.equal(tilde_encode("~"), "~7E");
  assert.equal(tilde_encode(" "), "+");
  assert.equal(tilde_encode("foo/bar.csv"), "foo~2Fbar~2Ecsv");
  assert.equal(tilde_encode("Az09_-"), "Az09_-");
});

Deno.test("tilde_encode writes each UTF-8 byte of non-ASCII text", () => {
  assert.equal(tilde_encode("é"), "~C3~A9");
  assert.equal(tilde_encode("日本"), "~E6~97~A5~E6~9C~AC");
  assert.equal(tilde_encode("😀"), "~F0~9F~98~80");
});

Deno.test("tilde_decode reverses tilde_encode", () => {
  for (const text of ["/", ".", "%", "~", " ", "a b/c.d~e%f", "日本 😀", "table.with.dots", ""]) {
    assert.equal(tilde_decode(tilde_encode(text)), text);
  }
});

Deno.test("tilde_decode leaves literal % alone and decodes lowercase hex", () => {
  assert.equal(tilde_decode("%2F"), "%2F");
  assert.equal(tilde_decode("a%20b~2f"), "a%20b/");
  assert.equal(tilde_decode("plus+sign"), "plus sign");
});

Deno.test("tilde_decode keeps malformed sequences literal", () => {
  assert.equal(tilde_decode("~"), "~");
  assert.equal(tilde_decode("~G1"), "~G1");
  assert.equal(tilde_decode("abc~2"), "abc~2");
});

Deno.test("pathFromRowPks joins encoded primary keys with commas", () => {
  assert.equal(pathFromRowPks({ a: "x,y", b: 3 }, ["a", "b"], false), "x~2Cy,3");
  assert.equal(pathFromRowPks({ rowid: 7, a: "z" }, ["a"], true), "7");
  assert.equal(pathFromRowPks({ fk: { value: "a/b", label: "AB" } }, ["fk"], false), "a~2Fb");
});

Deno.test("splitRowPath decodes each comma-separated value", () => {
  assert.deepEqual(splitRowPath("x~2Cy,3"), ["x,y", "3"]);
  assert.deepEqual(splitRowPath("hello+world"), ["hello world"]);
});

Deno.test("row paths write BLOBs and the empty string so that they can be read back", () => {
  const path = rowPathOf([new Uint8Array([0, 0xff]), "", "$x00", null, 2.5]);
  assert.equal(path, "$x00ff,$empty,~24x00,None,2~2E5");
  assert.deepEqual(rowPathValues(path), [new Uint8Array([0, 0xff]), "", "$x00", "None", "2.5"]);
  assert.deepEqual(splitRowPath("$empty,a"), ["", "a"]);
});
