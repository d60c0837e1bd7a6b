import assert from "node:assert/strict";
import { fingerprint, md5Hex } from "../../src/util/hash.ts";

Deno.test("md5Hex is MD5, as `md5sum` prints it (CSS class suffixes follow the reference)", () => {
  assert.equal(md5Hex("trees"), "2d5563ed288ac5396add9b78fbca810b");
});

Deno.test("fingerprint: 32 hex digits, stable, distinct for 200,000 near-identical URLs", () => {
  assert.match(fingerprint(""), /^[0-9a-f]{32}$/);
  assert.equal(fingerprint("/db/trees.json?_size=5"), fingerprint("/db/trees.json?_size=5"));
  const seen = new Set<string>();
  for (let i = 0; i < 200_000; i++) seen.add(fingerprint(`/bench/trees/${i}.json\u0000{"id":1}`));
  assert.equal(seen.size, 200_000);
  // Order, length and a trailing separator all count.
  assert.notEqual(fingerprint("ab"), fingerprint("ba"));
  assert.notEqual(fingerprint("a"), fingerprint("a\u0000"));
});

Deno.test("fingerprint: one changed character flips about half of the 128 bits", () => {
  const bits = (hex: string) => BigInt(`0x${hex}`);
  let flipped = 0;
  const trials = 2_000;
  for (let i = 0; i < trials; i++) {
    const text = `/demo/trees?_sort=height&page=${i}`;
    const changed = text.slice(0, 6) + String.fromCharCode(text.charCodeAt(6) ^ 1) + text.slice(7);
    let diff = bits(fingerprint(text)) ^ bits(fingerprint(changed));
    while (diff) {
      flipped += Number(diff & 1n);
      diff >>= 1n;
    }
  }
  const average = flipped / trials;
  assert.ok(average > 60 && average < 68, `average bits flipped: ${average}`);
});
