import assert from "node:assert/strict";
import { tilde_decode as tildeDecode, tilde_encode as tildeEncode } from "../../src/util/tilde.ts";
import {
  pathWithAddedArgs,
  pathWithRemovedArgs,
  pathWithReplacedArgs,
  quotePlus,
} from "../../src/table/url_args.ts";

Deno.test("tilde encoding round-trips and keeps a literal % on decode", () => {
  assert.equal(tildeEncode("A/1001"), "A~2F1001");
  assert.equal(tildeEncode("19.99"), "19~2E99");
  assert.equal(tildeEncode("a b~é"), "a+b~7E~C3~A9");
  assert.equal(tildeDecode("a+b~7E~C3~A9"), "a b~é");
  assert.equal(tildeDecode("100%25"), "100%25");
});

Deno.test("query arguments encode like Python's urlencode", () => {
  assert.equal(quotePlus("19~2E99,4 x"), "19~2E99%2C4+x");
  const current: [string, string][] = [["_size", "2"], ["_next", "1"], ["a", "x"]];
  assert.equal(
    pathWithReplacedArgs("/t", current, [["_next", "3"], ["_sort", null]]),
    "/t?_size=2&a=x&_next=3",
  );
  assert.equal(
    pathWithAddedArgs("/t", current, [["a", null], ["b", "1"]]),
    "/t?_size=2&_next=1&b=1",
  );
  assert.equal(pathWithRemovedArgs("/t", current, { names: ["_size", "_next", "a"] }), "/t");
  assert.equal(
    pathWithRemovedArgs("/t", current, { pairs: [["a", "y"]] }),
    "/t?_size=2&_next=1&a=x",
  );
});
