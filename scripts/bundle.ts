/**
 * `deno task bundle`: writes `dist/vitrine.js`, one file that runs anywhere with
 * `deno run -A dist/vitrine.js data.db`.
 *
 * `deno bundle` inlines the code and the npm dependencies; what it cannot see are Vitrine's own
 * files (`templates/`, `static/`), so this script writes them into a generated copy of
 * `src/util/embedded_assets.ts` in a temporary folder and points an import map at it. The
 * source tree is never modified, so a test suite running meanwhile is unaffected.
 *
 * Read workers need no second file either. The same generated module carries a bundle of
 * `src/app/read_worker.ts` alone (about 100 KB), which the program starts its workers from
 * through a `blob:` URL (`src/util/assets.ts`). Started from the whole bundle instead, each worker
 * would read, parse and evaluate 2.5 MB of code it never runs: measured on the 500k-row
 * benchmark table, such a worker booted in 52–56 ms and held 12–14 MB more than one started
 * from its own code (17–20 ms).
 *
 * Usage: `deno run -A scripts/bundle.ts [--output FILE]`.
 *
 * Not minified: `deno bundle --minify` leaves out the `require` it otherwise defines for npm
 * packages written as CommonJS, and the program then fails as it starts; measured with that
 * mended by hand, the smaller source saved no memory beyond the machine's noise.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { encodeBase64 } from "../src/http/base64.ts";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ASSET_FOLDERS = ["templates", "static"];

/** What {@link buildBundle} writes. */
export interface BundleOptions {
  /** Output file (default `dist/vitrine.js` in the repository). */
  output?: string;
  /** The repository to bundle (default: the one this script is in). */
  root?: string;
}

/** Builds the bundle; returns the output path. Throws with `deno bundle`'s message on failure. */
export async function buildBundle(options: BundleOptions = {}): Promise<string> {
  const root = resolve(options.root ?? ROOT);
  const output = resolve(options.output ?? join(root, "dist", "vitrine.js"));
  const work = await Deno.makeTempDir({ prefix: "vitrine-bundle-" });
  try {
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    const imports: Record<string, string> = config.imports ?? {};
    const plainImportMap = join(work, "worker_import_map.json");
    await Deno.writeTextFile(plainImportMap, JSON.stringify({ imports }));
    const workerFile = join(work, "read_worker.js");
    await denoBundle(root, join(root, "src", "app", "read_worker.ts"), workerFile, {
      importMap: plainImportMap,
    });

    const assetsModule = join(work, "embedded_assets.ts");
    const readWorker = asciiOnly(await Deno.readTextFile(workerFile));
    await Deno.writeTextFile(assetsModule, await embeddedAssetsModule(root, readWorker));
    const stub = pathToFileURL(join(root, "src", "util", "embedded_assets.ts")).href;
    const importMap = join(work, "import_map.json");
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({ imports: { ...imports, [stub]: pathToFileURL(assetsModule).href } }),
    );
    await Deno.mkdir(dirname(output), { recursive: true });
    await denoBundle(root, join(root, "cli.ts"), output, { importMap });
    const code = asciiOnly(await Deno.readTextFile(output));
    await Deno.writeTextFile(output, `#!/usr/bin/env -S deno run -A\n${code}`);
    await Deno.chmod(output, 0o755);
    return output;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/**
 * `code` with every character beyond ASCII written as a `\uXXXX` escape. V8 keeps a script's
 * source for as long as the program runs, and one character beyond Latin-1 anywhere in it, even
 * in a comment, makes it store every character in two bytes: the bundle's 2.6 million characters
 * took 5.3 MB of the server's memory instead of 2.6. `deno bundle` already escapes strings and
 * regular expressions; what it leaves is in the comments it keeps. The escape means the same
 * character in a string, template, regular expression or identifier too; only code reading its
 * own source text (`String.raw`, a regular expression's `source`) would see it differently.
 */
export function asciiOnly(code: string): string {
  return code.replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Runs `deno bundle` on `entry`; throws with its message on failure. */
async function denoBundle(
  root: string,
  entry: string,
  output: string,
  options: { importMap: string },
): Promise<void> {
  const args = [
    "bundle",
    "--quiet",
    "--platform=deno",
    "--no-lock",
    `--import-map=${options.importMap}`,
    `--output=${output}`,
    entry,
  ];
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const message = new TextDecoder().decode(result.stderr).trim();
    throw new Error(`deno bundle failed:\n${message}`);
  }
}

/**
 * The generated `embedded_assets.ts`: every file of `templates/` and `static/`, and the code read
 * workers start from (`readWorker`, itself a bundle; null where they start from the library's own
 * modules, as in the JSR package). Each is kept gzip-compressed, in base64, until it is read: a
 * program's source stays in memory for as long as it runs, twice (Deno's copy and V8's), and the
 * 1.3 MB of files, mostly vendored JavaScript, shrink to under 0.5 MB.
 */
export async function embeddedAssetsModule(
  root: string,
  readWorker: string | null = null,
): Promise<string> {
  const packed: Record<string, string> = {};
  for (const folder of ASSET_FOLDERS) {
    for (const path of await filesBelow(join(root, folder))) {
      packed[relative(root, path).split("\\").join("/")] = pack(await Deno.readFile(path));
    }
  }
  const worker = readWorker === null ? null : pack(new TextEncoder().encode(readWorker));
  return [
    "/**",
    " * Vitrine's templates and static files, and its read worker, each gzip-compressed in base64",
    " * until read. Generated by scripts/bundle.ts in place of src/util/embedded_assets.ts.",
    " *",
    " * @module",
    " */",
    'import { gunzipSync } from "node:zlib";',
    "",
    "/** Vitrine's own files, keyed by their path below the repository root. */",
    "export interface EmbeddedAssets {",
    "  /** Every file's path. */",
    "  paths: string[];",
    "  /** The bytes of the file at `path`, or null when there is none. */",
    "  read(path: string): Uint8Array | null;",
    "}",
    "",
    "let assets: EmbeddedAssets | undefined;",
    "",
    "/** Every file of templates/ and static/ (the table is built on the first call). */",
    "export function embeddedAssets(): EmbeddedAssets | null {",
    "  if (assets) return assets;",
    `  const packed: Record<string, string> = ${JSON.stringify(packed)};`,
    "  return assets = {",
    "    paths: Object.keys(packed),",
    "    read: (path) => Object.hasOwn(packed, path) ? unpack(packed[path]) : null,",
    "  };",
    "}",
    "",
    "/** The code read workers start from, or null when they start from the library's modules. */",
    "export function embeddedReadWorker(): string | null {",
    `  const packed: string | null = ${JSON.stringify(worker)};`,
    "  return packed === null ? null : new TextDecoder().decode(unpack(packed));",
    "}",
    "",
    "function unpack(packed: string): Uint8Array {",
    "  return new Uint8Array(gunzipSync(Uint8Array.fromBase64(packed)));",
    "}",
    "",
  ].join("\n");
}

/** A file as the generated module keeps it: gzip at the highest level, in base64. */
function pack(bytes: Uint8Array): string {
  return encodeBase64(gzipSync(bytes, { level: 9 }));
}

async function filesBelow(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await filesBelow(path));
    else if (entry.isFile) files.push(path);
  }
  return files.sort();
}

if (import.meta.main) {
  const args = Deno.args;
  const at = args.indexOf("--output");
  const output = at >= 0 ? args[at + 1] : undefined;
  const started = performance.now();
  const file = await buildBundle({ output });
  const size = (await Deno.stat(file)).size;
  const ms = Math.round(performance.now() - started);
  console.log(`Wrote ${relative(Deno.cwd(), file)} (${(size / 1024).toFixed(0)} KB) in ${ms} ms`);
}
