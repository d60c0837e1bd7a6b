/**
 * The files `scripts/bundle.ts` embeds into `dist/vitrine.js`. In the source tree this module is
 * a stub holding `null`, so Vitrine reads `templates/` and `static/` from disk; the bundle build
 * swaps in a generated copy of this module through an import map, never by editing this file.
 *
 * @module
 */

/** Vitrine's own files, keyed by their path below the repository root (`templates/base.html`). */
export interface EmbeddedAssets {
  /** UTF-8 files: templates, CSS, JavaScript. */
  text: Record<string, string>;
  /** Every other file, base64-encoded. */
  binary: Record<string, string>;
}

/**
 * Null here; the generated copy returns every file of `templates/` and `static/`, building the
 * table on the first call only (read workers, which load the bundle too, never call it).
 */
export function embeddedAssets(): EmbeddedAssets | null {
  return null;
}
