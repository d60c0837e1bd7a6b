/** Small digests: MD5 for colours and CSS class suffixes, a fast fingerprint for cache keys. */
import { createHash } from "node:crypto";

/** Hex MD5 of a UTF-8 string (not for security: colours and class names). */
export function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}

/**
 * A 128-bit fingerprint of `text` as 32 hex digits: four 32-bit lanes, each multiplying in every
 * UTF-16 unit with its own odd constant, cross-mixed and finished with MurmurHash3's `fmix32`.
 * Not cryptographic — for ETags and cache keys built from values that are not secret. A call into
 * `node:crypto` costs several microseconds on every request; this costs well under one for a URL.
 */
export function fingerprint(text: string): string {
  let a = 0x243f6a88, b = 0x85a308d3, c = 0x13198a2e, d = 0x03707344;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x9e3779b1);
    b = Math.imul(b ^ unit, 0x85ebca77);
    c = Math.imul(c ^ unit, 0xc2b2ae3d);
    d = Math.imul(d ^ unit, 0x27d4eb2f);
  }
  const n = text.length;
  a = fmix32(a ^ n ^ (d >>> 7));
  b = fmix32(b ^ a);
  c = fmix32(c ^ b);
  d = fmix32(d ^ c);
  return hex8(a) + hex8(b) + hex8(c) + hex8(d);
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0");
