/**
 * A number's text as `String(n)` writes it, made without V8's number-to-string cache.
 *
 * Why: V8 remembers the text of recent numbers it turned into strings in a cache that lives in its
 * old generation, so `String(n)` and template literals allocate the text of every number that is
 * not a small integer (a REAL's `12.5`, an integer beyond 32 bits) there, not among the young
 * objects: garbage that only a full collection frees. A 500k-row export with one REAL column left
 * 11 MB of it in a read worker's heap, which grew from 10 to 18 MB before each full collection.
 * `JSON.stringify` writes a finite number with the same algorithm into a young string.
 *
 * @module
 */

/** `String(value)`, for the numbers of rows written by the thousand. */
export function numberText(value: number): string {
  // Small integers are cached as they are (no new string) and NaN/±Infinity have fixed texts.
  if ((value | 0) === value || !Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}
