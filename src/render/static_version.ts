/**
 * A short version stamp of Vitrine's own `static/` files, for cache-busting query strings: assets
 * are served with a one-hour cache, so a link such as `app.js?3fa2c1` changes whenever any bundled
 * file does.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";

const STATIC_DIR = fileURLToPath(new URL("../../static/", import.meta.url));

let version: string | null = null;

/** First 8 hex characters of a SHA-256 over every file under `static/` (names and contents). */
export function staticVersion(): string {
  if (version === null) {
    const hash = createHash("sha256");
    try {
      for (const path of filesUnder(STATIC_DIR).sort()) {
        hash.update(path).update(Deno.readFileSync(STATIC_DIR + path));
      }
    } catch {
      // A bundled build without readable files: still a stable stamp.
    }
    version = hash.digest("hex").slice(0, 8);
  }
  return version;
}

function filesUnder(root: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(root + prefix)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) out.push(...filesUnder(root, path + "/"));
    else if (entry.isFile) out.push(path);
  }
  return out;
}
