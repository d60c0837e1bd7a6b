/**
 * The nunjucks loader behind `TemplateEnvironment`: user template dirs, then plugin template
 * dirs, then the bundled defaults; `default:<name>` reads the bundled defaults only, so an
 * override can `{% extends "default:table.html" %}` and call `super()`.
 */
import { join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's own `templates/` folder. */
export const DEFAULT_TEMPLATE_DIR: string = fileURLToPath(
  new URL("../../templates/", import.meta.url),
);

/** Prefix that forces a name to resolve against the bundled defaults. */
export const DEFAULT_PREFIX = "default:";

/** Shape nunjucks expects from `getSource`. */
export interface LoaderSource {
  src: string;
  path: string;
  noCache: boolean;
}

/** A synchronous nunjucks loader over an ordered list of directories. */
export class TemplateLoader {
  /** nunjucks stores compiled templates here (keyed by name); cleared when dirs change. */
  cache: Record<string, unknown> = {};
  readonly userDirs: string[];
  readonly pluginDirs: string[] = [];
  readonly defaultDir: string;

  constructor(userDirs: string[] = [], defaultDir: string = DEFAULT_TEMPLATE_DIR) {
    this.userDirs = [...userDirs];
    this.defaultDir = defaultDir;
  }

  /** Add a plugin's bundled templates directory (searched after the user dirs). */
  addPluginDir(dir: string): void {
    if (!this.pluginDirs.includes(dir)) this.pluginDirs.push(dir);
    this.cache = {};
  }

  /** Directories searched for a plain (unprefixed) name, in order. */
  searchDirs(): string[] {
    return [...this.userDirs, ...this.pluginDirs, this.defaultDir];
  }

  /** Absolute path of the file a name resolves to, or null. */
  resolve(name: string): string | null {
    const forceDefault = name.startsWith(DEFAULT_PREFIX);
    const relative = forceDefault ? name.slice(DEFAULT_PREFIX.length) : name;
    if (!isSafeRelative(relative)) return null;
    const dirs = forceDefault ? [this.defaultDir] : this.searchDirs();
    for (const dir of dirs) {
      const path = join(dir, relative);
      if (isFile(path)) return path;
    }
    return null;
  }

  /** True when some directory holds the template. */
  exists(name: string): boolean {
    return this.resolve(name) !== null;
  }

  /** nunjucks loader entry point; null means "not found here". */
  getSource(name: string): LoaderSource | null {
    const path = this.resolve(name);
    if (path === null) return null;
    return { src: Deno.readTextFileSync(path), path, noCache: false };
  }
}

/** Refuse absolute names and `..` segments so a template name cannot escape its folder. */
function isSafeRelative(name: string): boolean {
  if (name === "" || name.startsWith("/") || name.startsWith("\\")) return false;
  const normalized = normalize(name);
  return !normalized.split(sep).includes("..") && !name.includes("\0");
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
