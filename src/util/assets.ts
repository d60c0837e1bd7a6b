/**
 * The one way Vitrine's code reaches its own files — the default templates, the static CSS and
 * JavaScript — and the module a read worker starts from. The same program then runs in every
 * form it ships in:
 *
 * - **from source** (`deno run -A cli.ts`, or `mod.ts` imported by a path): files are read from
 *   `templates/` and `static/` next to `src/`, so edits show without a build;
 * - **bundled** (`deno task bundle` → `dist/vitrine.js`): `scripts/bundle.ts` replaces
 *   `embedded_assets.ts` with a generated copy holding every file, so nothing is read from disk;
 * - **compiled** (`deno task compile`): the files are embedded with `--include` and read like
 *   the source tree.
 *
 * Where read workers start from (`cli.ts` chooses, through {@link setReadWorkerEntry}):
 *
 * - in a bundle, from the read worker's own code, bundled apart and embedded in the program
 *   ({@link embeddedReadWorkerUrl}), so that a worker does not load the whole program;
 * - in a compiled binary, from the program's entry, `cli.ts`, which then runs the worker code of
 *   `src/app/read_worker.ts`;
 * - from source or as a library, from the module the pool names: `src/app/read_worker.ts` for a
 *   service, `src/db/plain_worker.ts` for a lone database.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { embeddedAssets, embeddedReadWorker } from "./embedded_assets.ts";

/** The two folders of Vitrine's own files. */
export type AssetFolder = "templates" | "static";

/** The `name` every read worker is started with; `cli.ts` checks it to run the worker code. */
export const READ_WORKER_NAME = "vitrine-read-worker";

const ROOT = new URL("../../", import.meta.url);
let workerEntry: string | null = null;
let readWorkerBlobUrl: string | undefined;

/**
 * The folder on disk holding Vitrine's own `folder`, or null when the files are embedded (the
 * bundle) or the code was not loaded from a `file:` URL.
 */
export function assetDir(folder: AssetFolder): string | null {
  if (embeddedAssets() || ROOT.protocol !== "file:") return null;
  return fileURLToPath(new URL(`${folder}/`, ROOT));
}

/**
 * The root of the source tree this code runs from (the folder holding `cli.ts`), or null when it
 * runs from a bundle or was not loaded from a `file:` URL.
 */
export function sourceRoot(): string | null {
  if (embeddedAssets() || ROOT.protocol !== "file:") return null;
  return fileURLToPath(ROOT);
}

/** True when Vitrine's files come from the embedded copy rather than from disk. */
export function assetsEmbedded(): boolean {
  return embeddedAssets() !== null;
}

/** The bytes of `folder/relative`, or null when there is no such file (or the path escapes). */
export function readAsset(folder: AssetFolder, relative: string): Uint8Array | null {
  if (!isSafeRelative(relative)) return null;
  const key = `${folder}/${relative}`;
  const embedded = embeddedAssets();
  if (embedded) return embedded.read(key);
  const dir = assetDir(folder);
  if (dir === null) return null;
  try {
    return Deno.readFileSync(`${dir}${relative}`);
  } catch {
    return null;
  }
}

/** The relative paths of every file under `folder`, sorted (`vendor/map.js`, ...). */
export function listAssets(folder: AssetFolder): string[] {
  const embedded = embeddedAssets();
  if (embedded) {
    const prefix = `${folder}/`;
    return embedded.paths.filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length)).sort();
  }
  const dir = assetDir(folder);
  return dir === null ? [] : filesUnder(dir).sort();
}

/** True when the embedded copy holds `folder/relative` (without reading it). */
export function isEmbeddedAsset(folder: AssetFolder, relative: string): boolean {
  return embeddedAssets()?.paths.includes(`${folder}/${relative}`) ?? false;
}

/** The text of `folder/relative` (UTF-8), or null when there is no such file. */
export function readAssetText(folder: AssetFolder, relative: string): string | null {
  const bytes = readAsset(folder, relative);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/**
 * A `blob:` URL of the read worker's code embedded in a bundle, made on the first call, or null
 * when the program carries none (from source, compiled, as a library).
 */
export function embeddedReadWorkerUrl(): string | null {
  const code = embeddedReadWorker();
  if (code === null) return null;
  return readWorkerBlobUrl ??= URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
}

/**
 * Makes read workers start from `url` (with {@link READ_WORKER_NAME} as their name). `cli.ts`
 * passes the embedded worker of a bundle, or its own URL inside a compiled binary, so that
 * neither needs a second file.
 */
export function setReadWorkerEntry(url: string): void {
  workerEntry = url;
}

/**
 * The module a read worker starts from: the entry a program registered with
 * {@link setReadWorkerEntry}, else `fallback` (the pool's own choice).
 */
export function readWorkerEntry(fallback: string | URL): string {
  return workerEntry ?? String(fallback);
}

/** True in a thread started as a read worker. */
export function isReadWorkerThread(): boolean {
  const scope = globalThis as { WorkerGlobalScope?: unknown; name?: unknown };
  return scope.WorkerGlobalScope !== undefined && scope.name === READ_WORKER_NAME;
}

/** Refuses absolute names, `..` and `.` segments, backslashes and NUL. */
function isSafeRelative(relative: string): boolean {
  if (relative === "" || relative.startsWith("/") || /[\\\0]/.test(relative)) return false;
  return relative.split("/").every((segment) => segment !== ".." && segment !== ".");
}

function filesUnder(root: string, prefix = ""): string[] {
  const out: string[] = [];
  try {
    for (const entry of Deno.readDirSync(root + prefix)) {
      const path = prefix + entry.name;
      if (entry.isDirectory) out.push(...filesUnder(root, path + "/"));
      else if (entry.isFile) out.push(path);
    }
  } catch {
    // An unreadable folder lists nothing.
  }
  return out;
}
