/** Constant-time string comparison for secrets (tokens, CSRF values). */

import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";

/** True when `a` and `b` are equal; the time taken does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  // Compare against itself on a length mismatch so both paths do the same amount of work.
  if (left.length !== right.length) return timingSafeEqual(left, left) && false;
  return timingSafeEqual(left, right);
}
