/**
 * Builds the browser libraries Vitrine serves from `static/vendor/` (run with `deno task vendor`;
 * the output is committed, so serving and testing never need this step or the network).
 *
 * Each small entry file in `scripts/vendor/` becomes one minified ES module (or stylesheet) of the
 * same name: `editor.js` (CodeMirror 6 + a SQLite formatter), `chart.js` (Observable Plot), `csv.js` (Papa Parse),
 * `map.js` + `map.css` (Leaflet + Leaflet.markercluster). Versions are pinned in deno.json's
 * `imports` and locked in deno.lock. Most minified bundles lose their licence banners, so this
 * script also writes `static/vendor/THIRD_PARTY_LICENSES.txt`: every npm package whose code ends
 * up in a bundle (read from a source map of the build), with its licence text.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ENTRIES = join(ROOT, "scripts/vendor");
const OUT = join(ROOT, "static/vendor");

/** One output file and the entry it is built from. */
interface Bundle {
  entry: string;
  /** What the bundle is for, written into the licences file. */
  purpose: string;
  /** Extra `deno bundle` flags. */
  flags?: string[];
}

const BUNDLES: Bundle[] = [
  { entry: "editor.js", purpose: "SQL editor (static/sql-editor.js)" },
  { entry: "chart.js", purpose: "charts of rows (static/chart-view.js)" },
  { entry: "map.js", purpose: "maps of rows (static/map-view.js)" },
  { entry: "csv.js", purpose: "CSV parsing of uploads (static/upload.js)" },
  // Leaflet's stylesheet names its icons as url(images/…): kept as written, the files copied.
  { entry: "map.css", purpose: "map styles", flags: ["--external", "*.png"] },
];

/** Leaflet's images, which map.css refers to relative to itself. */
const LEAFLET_IMAGES = ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png"];

/** `name@version` → the package folder in Deno's npm cache. */
type PackageDirs = Map<string, string>;

async function main(): Promise<void> {
  await Deno.mkdir(OUT, { recursive: true });
  const temp = await Deno.makeTempDir({ prefix: "vitrine-vendor-" });
  const used = new Map<string, Set<string>>();
  const dirs: PackageDirs = new Map();
  try {
    for (const bundle of BUNDLES) {
      const packages = await build(bundle, temp, dirs);
      used.set(bundle.entry, packages);
      const size = (await Deno.stat(join(OUT, bundle.entry))).size;
      console.log(`static/vendor/${bundle.entry}  ${size.toLocaleString("en")} bytes`);
    }
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
  await copyLeafletImages(dirs);
  await Deno.writeTextFile(join(OUT, "THIRD_PARTY_LICENSES.txt"), await licences(used, dirs));
  console.log("static/vendor/THIRD_PARTY_LICENSES.txt written");
}

/** Bundles one entry with a source map (to learn its packages), then keeps the bare output. */
async function build(bundle: Bundle, temp: string, dirs: PackageDirs): Promise<Set<string>> {
  const built = join(temp, bundle.entry);
  const args = [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--minify",
    "--sourcemap",
    "external",
    ...(bundle.flags ?? []),
    "-o",
    built,
    join(ENTRIES, bundle.entry),
  ];
  const result = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT }).output();
  if (!result.success) {
    throw new Error(
      `deno bundle ${bundle.entry} failed:\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  const code = (await Deno.readTextFile(built)).replace(/\n?\/[/*]# sourceMappingURL=.*$/m, "");
  await Deno.writeTextFile(join(OUT, bundle.entry), code.endsWith("\n") ? code : code + "\n");
  const map = JSON.parse(await Deno.readTextFile(`${built}.map`)) as { sources: string[] };
  const packages = new Set<string>();
  for (const source of map.sources) {
    const found = packageOf(decodeURIComponent(source));
    if (!found) continue;
    packages.add(found.id);
    dirs.set(found.id, found.dir);
  }
  return packages;
}

/** `…/registry.npmjs.org/@scope/name/1.2.3/…` → `@scope/name@1.2.3` and its folder. */
function packageOf(source: string): { id: string; dir: string } | null {
  const match = /^(.*registry\.npmjs\.org\/)((?:@[^/]+\/)?[^/@]+)\/(\d[^/]*)\//.exec(
    source.replace(/^file:\/\//, ""),
  );
  if (!match) return null;
  const [, prefix, name, version] = match;
  const base = prefix.startsWith("/") ? prefix : join(npmCacheRoot(), "registry.npmjs.org") + "/";
  return { id: `${name}@${version}`, dir: join(base, name, version) };
}

let cacheRoot: string | null = null;

/** Deno's npm cache folder (sources in a source map may be relative to the output). */
function npmCacheRoot(): string {
  if (cacheRoot === null) {
    const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).outputSync();
    cacheRoot = String(JSON.parse(new TextDecoder().decode(info.stdout)).npmCache);
  }
  return cacheRoot;
}

async function copyLeafletImages(dirs: PackageDirs): Promise<void> {
  const leaflet = [...dirs.entries()].find(([id]) => id.startsWith("leaflet@"));
  if (!leaflet) throw new Error("leaflet is not part of any bundle");
  await Deno.mkdir(join(OUT, "images"), { recursive: true });
  for (const image of LEAFLET_IMAGES) {
    await Deno.copyFile(join(leaflet[1], "dist/images", image), join(OUT, "images", image));
  }
}

const LICENCE_FILES = ["LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "license", "License"];

/** The licences file: which packages each bundle holds, then each package's licence text. */
async function licences(used: Map<string, Set<string>>, dirs: PackageDirs): Promise<string> {
  const lines = [
    "Third-party software in Vitrine's static/vendor/ bundles",
    "",
    "These files are built by scripts/build_vendor.ts (`deno task vendor`) from the npm packages",
    "below, at the exact versions listed. Each package keeps its own licence, reproduced here.",
    "",
  ];
  for (const [entry, packages] of used) {
    const bundle = BUNDLES.find((b) => b.entry === entry)!;
    lines.push(`${entry} (${bundle.purpose}): ${[...packages].sort().join(", ")}`);
  }
  const all = [...new Set([...used.values()].flatMap((s) => [...s]))].sort();
  for (const id of all) {
    const dir = dirs.get(id)!;
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
    lines.push("", "=".repeat(78), `${id} — ${manifest.license ?? "see below"}`, "=".repeat(78));
    lines.push(
      (await licenceText(dir)) ?? `Licence: ${manifest.license} (no licence file shipped)`,
    );
  }
  return lines.join("\n").trimEnd() + "\n";
}

async function licenceText(dir: string): Promise<string | null> {
  for (const name of LICENCE_FILES) {
    try {
      return (await Deno.readTextFile(join(dir, name))).trim();
    } catch {
      // try the next spelling
    }
  }
  return null;
}

if (import.meta.main) await main();
