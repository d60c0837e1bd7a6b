/** Small digests: MD5 for colours and CSS class suffixes, a fast fingerprint for cache keys. */
import { createHash } from "node:crypto";

/** Hex MD5 of a UTF-8 string (not for security: colours and class names). */
export function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}

/** The state of {@link fingerprint} after some text: resume from it to hash what follows. */
export interface FingerprintPrefix {
  readonly lanes: readonly [number, number, number, number];
  readonly length: number;
}

const START: FingerprintPrefix = {
  lanes: [0x243f6a88, 0x85a308d3 | 0, 0x13198a2e, 0x03707344],
  length: 0,
};

/**
 * The state after hashing `text`: `fingerprint(rest, fingerprintPrefix(text))` equals
 * `fingerprint(text + rest)`, without going over `text` again (an ETag's long, fixed part).
 */
export function fingerprintPrefix(
  text: string,
  after: FingerprintPrefix = START,
): FingerprintPrefix {
  const lanes = after.lanes;
  let a = lanes[0], b = lanes[1], c = lanes[2], d = lanes[3];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x9e3779b1);
    b = Math.imul(b ^ unit, 0x85ebca77);
    c = Math.imul(c ^ unit, 0xc2b2ae3d);
    d = Math.imul(d ^ unit, 0x27d4eb2f);
  }
  return { lanes: [a, b, c, d], length: after.length + text.length };
}

/**
 * A 128-bit fingerprint of `text` as 32 hex digits: four 32-bit lanes, each multiplying in every
 * UTF-16 unit with its own odd constant, cross-mixed and finished with MurmurHash3's `fmix32`.
 * Not cryptographic — for ETags and cache keys built from values that are not secret. A call into
 * `node:crypto` costs several microseconds on every request; this costs well under one for a URL.
 * With `after`, the text is taken to follow the text `after` was made from.
 */
export function fingerprint(text: string, after?: FingerprintPrefix): string {
  const { lanes, length } = fingerprintPrefix(text, after);
  const a = fmix32(lanes[0] ^ length ^ (lanes[3] >>> 7));
  const b = fmix32(lanes[1] ^ a);
  const c = fmix32(lanes[2] ^ b);
  const d = fmix32(lanes[3] ^ c);
  return hex8(a) + hex8(b) + hex8(c) + hex8(d);
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two hex digits per byte value: `toString(16)` and `padStart` cost 70 ns a lane, this 3. */
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

const hex8 = (n: number) =>
  BYTE_HEX[n >>> 24] + BYTE_HEX[(n >>> 16) & 255] + BYTE_HEX[(n >>> 8) & 255] + BYTE_HEX[n & 255];

/** Hex SHA-256 of bytes: the `_blob_hash` naming a BLOB cell in a query result's link. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
