/**
 * Compressed copies of response bodies that are sent again unchanged — pages kept by the page
 * cache, static files — by body and coding, so that each is compressed once per coding rather
 * than once per request (`app/compression.ts` makes and reads them). Held weakly: the copies go
 * when their body does.
 *
 * @module
 */

const copies = new WeakMap<Uint8Array, Map<string, Uint8Array>>();

/** Marks `body` as one that is sent again unchanged: its compressed copies are kept with it. */
export function keepCompressedCopies(body: Uint8Array): void {
  if (!copies.has(body)) copies.set(body, new Map());
}

/** The compressed copies kept for `body`, by coding; undefined when it is not marked. */
export function compressedCopiesOf(body: Uint8Array): Map<string, Uint8Array> | undefined {
  return copies.get(body);
}
