/**
 * An integer's decimal digits written into bytes without making a string of it: the export
 * writers' integers are most of their numbers, and `String(n)` showed in their profiles.
 *
 * @module
 */

/**
 * Writes `value` (an integer whose magnitude fits in 31 bits) at `out[at]`, with a leading `-`
 * when negative, and answers where the next byte goes. The caller makes the room (at most 11
 * bytes).
 */
export function writeDigits(out: Uint8Array, at: number, value: number): number {
  if (value < 0) {
    out[at++] = 0x2d; // -
    value = -value;
  }
  let digits = 1;
  for (let power = 10; value >= power; power *= 10) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    const rest = (value / 10) | 0;
    out[i] = 0x30 + value - rest * 10;
    value = rest;
  }
  return at + digits;
}
