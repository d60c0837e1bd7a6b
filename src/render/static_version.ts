/**
 * A short version stamp of Vitrine's own `static/` files, for cache-busting query strings: assets
 * are served with a one-hour cache, so a link such as `app.js?3fa2c1` changes whenever any bundled
 * file does.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { listAssets, readAsset } from "../util/assets.ts";

let version: string | null = null;

/** First 8 hex characters of a SHA-256 over every file under `static/` (names and contents). */
export function staticVersion(): string {
  if (version === null) {
    const hash = createHash("sha256");
    for (const path of listAssets("static")) {
      hash.update(path).update(readAsset("static", path) ?? new Uint8Array());
    }
    version = hash.digest("hex").slice(0, 8);
  }
  return version;
}
