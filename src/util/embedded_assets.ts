/**
 * The files `scripts/bundle.ts` embeds into `dist/vitrine.js`, and the read worker's own bundle.
 * In the source tree this module is a stub holding `null`, so Vitrine reads `templates/` and
 * `static/` from disk and workers start from `src/app/read_worker.ts`; the bundle build swaps in a
 * generated copy of this module through an import map, never by editing this file.
 *
 * @module
 */

/** Vitrine's own files, keyed by their path below the repository root (`templates/base.html`). */
export interface EmbeddedAssets {
  /** Every file's path. */
  paths: string[];
  /** The bytes of the file at `path`, or null when there is none. */
  read(path: string): Uint8Array | null;
}

/**
 * Null here; the generated copy holds every file of `templates/` and `static/`, compressed until
 * one is read (read workers, which have their own bundle, never call it).
 */
export function embeddedAssets(): EmbeddedAssets | null {
  return null;
}

/**
 * Null here; in a bundle, the code of `src/app/read_worker.ts` bundled alone, which read workers
 * start from instead of the whole program (see `util/assets.ts`).
 */
export function embeddedReadWorker(): string | null {
  return null;
}
