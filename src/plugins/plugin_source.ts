/**
 * Turns a plugin specifier into what the loader needs before importing: a module URL, the
 * plugin's name, its version when a manifest gives one, and its bundled `static/` and
 * `templates/` directories.
 *
 * Specifier forms:
 * - a local file (`./plugins/foo.ts`, relative to the working directory, or a `file:` URL):
 *   name = file stem; bundled assets in a sibling folder named like the stem
 *   (`foo/static/`, `foo/templates/`);
 * - a local directory: entry = package.json `main`/`module`/`exports`, deno.json `exports`, or
 *   the first of `mod.ts`, `index.ts`, `index.js`, `mod.js`; name and version from the manifest
 *   (else the directory name); assets in `static/` and `templates/` inside it;
 * - `npm:` / `jsr:`: name = package name, version when the specifier pins an exact one;
 * - `http:` / `https:`: name = file stem (or the parent folder for `mod`/`index` files).
 *
 * @module
 */

import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A plugin located but not yet imported. */
export interface PluginSource {
  name: string;
  /** Specifier URL passed to `import()`. */
  url: string;
  /** Version from a manifest or an exact `npm:`/`jsr:` pin; null when unknown yet. */
  version: string | null;
  staticDir: string | null;
  templatesDir: string | null;
}

const ENTRY_FILES = ["mod.ts", "index.ts", "index.js", "mod.js"];
const ENTRY_STEMS = new Set(["mod", "index", "main", "plugin"]);
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/** Locates the plugin named by `specifier`; local paths are resolved against `cwd`. */
export async function resolvePluginSource(specifier: string, cwd: string): Promise<PluginSource> {
  if (/^(npm|jsr):/.test(specifier)) return packageSource(specifier);
  if (/^https?:\/\//.test(specifier)) return remoteSource(specifier);
  const path = specifier.startsWith("file:")
    ? fileURLToPath(specifier)
    : isAbsolute(specifier)
    ? specifier
    : resolve(cwd, specifier);
  const info = await Deno.stat(path);
  return info.isDirectory ? await directorySource(path) : await fileSource(path);
}

/** The package name and exact version of an `npm:`/`jsr:` specifier (subpath ignored). */
export function parsePackageSpecifier(specifier: string): { name: string; version: string | null } {
  const rest = specifier.replace(/^(npm|jsr):\/?/, "");
  const match = rest.match(/^(@[^/@]+\/[^/@]+|[^/@]+)(?:@([^/]+))?/);
  if (!match) return { name: rest, version: null };
  const version = match[2] && EXACT_VERSION.test(match[2]) ? match[2] : null;
  return { name: match[1], version };
}

function packageSource(specifier: string): PluginSource {
  const { name, version } = parsePackageSpecifier(specifier);
  return { name, url: specifier, version, staticDir: null, templatesDir: null };
}

function remoteSource(specifier: string): PluginSource {
  const segments = new URL(specifier).pathname.split("/").filter(Boolean);
  let name = stem(segments.at(-1) ?? "plugin");
  if (ENTRY_STEMS.has(name) && segments.length > 1) name = segments.at(-2)!;
  return { name, url: specifier, version: null, staticDir: null, templatesDir: null };
}

async function fileSource(path: string): Promise<PluginSource> {
  const name = stem(basename(path));
  const assets = join(dirname(path), name);
  return {
    name,
    url: pathToFileURL(path).href,
    version: null,
    staticDir: await existingDir(join(assets, "static")),
    templatesDir: await existingDir(join(assets, "templates")),
  };
}

async function directorySource(dir: string): Promise<PluginSource> {
  const manifest = await readManifest(dir);
  const entry = manifest.entry ?? await firstExisting(dir, ENTRY_FILES);
  if (!entry) {
    throw new Error(
      `no entry module (package.json "main", deno.json "exports" or mod.ts) in ${dir}`,
    );
  }
  return {
    name: manifest.name ?? basename(dir),
    url: pathToFileURL(resolve(dir, entry)).href,
    version: manifest.version,
    staticDir: await existingDir(join(dir, "static")),
    templatesDir: await existingDir(join(dir, "templates")),
  };
}

interface Manifest {
  name: string | null;
  version: string | null;
  entry: string | null;
}

/** Name, version and entry from package.json, else deno.json / deno.jsonc. */
async function readManifest(dir: string): Promise<Manifest> {
  for (const file of ["package.json", "deno.json", "deno.jsonc"]) {
    const text = await readTextIfExists(join(dir, file));
    if (text === null) continue;
    const json = JSON.parse(file.endsWith("c") ? stripJsonComments(text) : text);
    const entry = file === "package.json" ? json.main ?? json.module : null;
    return {
      name: typeof json.name === "string" ? json.name : null,
      version: typeof json.version === "string" ? json.version : null,
      entry: typeof entry === "string" ? entry : exportsEntry(json.exports),
    };
  }
  return { name: null, version: null, entry: null };
}

function exportsEntry(exports: unknown): string | null {
  if (typeof exports === "string") return exports;
  if (exports && typeof exports === "object") {
    const main = (exports as Record<string, unknown>)["."];
    if (typeof main === "string") return main;
    if (main && typeof main === "object") {
      const conditional = main as Record<string, unknown>;
      const target = conditional.deno ?? conditional.import ?? conditional.default;
      if (typeof target === "string") return target;
    }
  }
  return null;
}

function stripJsonComments(text: string): string {
  return text.replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
}

function stem(fileName: string): string {
  return fileName.slice(0, fileName.length - extname(fileName).length);
}

async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function existingDir(path: string): Promise<string | null> {
  try {
    return (await Deno.stat(path)).isDirectory ? path : null;
  } catch {
    return null;
  }
}

async function firstExisting(dir: string, names: string[]): Promise<string | null> {
  for (const name of names) {
    try {
      if ((await Deno.stat(join(dir, name))).isFile) return name;
    } catch {
      // try the next candidate
    }
  }
  return null;
}
