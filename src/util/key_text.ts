/**
 * Key values written as text in URLs — row paths (`util/tilde.ts`) and `next` tokens
 * (`table/pagination.ts`) — where their plain text would not find them again. The forms start
 * with `$`, which tilde encoding never leaves in a value (it writes `~24`), so they cannot be
 * mistaken for a value's own text.
 *
 * @module
 */

/** The part standing for the empty string, which would otherwise leave a part or path empty. */
export const EMPTY_KEY_TEXT = "$empty";

/** A BLOB as `$x` and its bytes in hex. */
export function blobKeyText(bytes: Uint8Array): string {
  return `$x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** A key value as text, for messages and `pk_values`: a BLOB in its `$x` form. */
export function keyText(value: string | Uint8Array): string {
  return typeof value === "string" ? value : blobKeyText(value);
}

/** The bytes a `$x…` part writes, or null when `part` is not one. */
export function blobFromKeyText(part: string): Uint8Array | null {
  const hex = /^\$x((?:[0-9a-f]{2})*)$/.exec(part)?.[1];
  if (hex === undefined) return null;
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/**
 * The number `text` writes (`7`, `-2.5`, `1e3`), or null for any other text: an integer exact as
 * a bigint past 2^53 while SQLite's 64-bit integers hold it, a REAL beyond that.
 */
export function numberFromText(text: string): number | bigint | null {
  if (!/^-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$/i.test(text)) return null;
  const number = Number(text);
  if (/^-?[0-9]+$/.test(text) && !Number.isSafeInteger(number)) {
    const big = BigInt(text);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return big;
  }
  return Number.isFinite(number) ? number : null;
}
