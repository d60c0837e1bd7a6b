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
 * Usage: `deno run -A scripts/bundle.ts [--output FILE] [--minify]`.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { encodeBase64 } from "../src/http/base64.ts";
import type { EmbeddedAssets } from "../src/util/embedded_assets.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ASSET_FOLDERS = ["templates", "static"];
const TEXT_FILE = /\.(?:html|css|js|mjs|json|map|txt|svg|md|csv|xml)$/i;

/** What {@link buildBundle} writes. */
export interface BundleOptions {
  /** Output file (default `dist/vitrine.js` in the repository). */
  output?: string;
  /** Minify the output. */
  minify?: boolean;
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
      minify: options.minify,
    });

    const assetsModule = join(work, "embedded_assets.ts");
    const readWorker = await Deno.readTextFile(workerFile);
    await Deno.writeTextFile(assetsModule, await embeddedAssetsModule(root, readWorker));
    const stub = pathToFileURL(join(root, "src", "util", "embedded_assets.ts")).href;
    const importMap = join(work, "import_map.json");
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({ imports: { ...imports, [stub]: pathToFileURL(assetsModule).href } }),
    );
    await Deno.mkdir(dirname(output), { recursive: true });
    await denoBundle(root, join(root, "cli.ts"), output, { importMap, minify: options.minify });
    const code = await Deno.readTextFile(output);
    await Deno.writeTextFile(output, `#!/usr/bin/env -S deno run -A\n${code}`);
    await Deno.chmod(output, 0o755);
    return output;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** Runs `deno bundle` on `entry`; throws with its message on failure. */
async function denoBundle(
  root: string,
  entry: string,
  output: string,
  options: { importMap: string; minify?: boolean },
): Promise<void> {
  const args = [
    "bundle",
    "--quiet",
    "--platform=deno",
    "--no-lock",
    `--import-map=${options.importMap}`,
    `--output=${output}`,
    ...(options.minify ? ["--minify"] : []),
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
 * modules, as in the JSR package).
 */
export async function embeddedAssetsModule(
  root: string,
  readWorker: string | null = null,
): Promise<string> {
  const assets: EmbeddedAssets = { text: {}, binary: {} };
  for (const folder of ASSET_FOLDERS) {
    for (const path of await filesBelow(join(root, folder))) {
      const key = relative(root, path).split("\\").join("/");
      const bytes = await Deno.readFile(path);
      if (TEXT_FILE.test(path)) assets.text[key] = new TextDecoder().decode(bytes);
      else assets.binary[key] = encodeBase64(bytes);
    }
  }
  return [
    "// Generated by scripts/bundle.ts: Vitrine's templates and static files, and its read worker.",
    "let assets;",
    "export function embeddedAssets() {",
    `  return assets ??= ${JSON.stringify(assets)};`,
    "}",
    "/** The code read workers start from, or null when they start from the library's modules. */",
    "export function embeddedReadWorker(): string | null {",
    `  return ${JSON.stringify(readWorker)};`,
    "}",
    "",
  ].join("\n");
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
  const file = await buildBundle({ output, minify: args.includes("--minify") });
  const size = (await Deno.stat(file)).size;
  const ms = Math.round(performance.now() - started);
  console.log(`Wrote ${relative(Deno.cwd(), file)} (${(size / 1024).toFixed(0)} KB) in ${ms} ms`);
}
