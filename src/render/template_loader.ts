/**
 * The nunjucks loader behind `TemplateEnvironment`: user template dirs, then plugin template
 * dirs, then the bundled defaults; `default:<name>` reads the bundled defaults only, so an
 * override can `{% extends "default:table.html" %}` and call `super()`.
 */
import { join, normalize, sep } from "node:path";
import { assetDir, isEmbeddedAsset, readAssetText } from "../util/assets.ts";
import { isFile } from "../util/files.ts";

/**
 * Vitrine's own `templates/` folder on disk, or null when the templates are embedded (the
 * bundle): defaults are then read through the assets module under {@link EMBEDDED_PREFIX} paths.
 */
const DEFAULT_TEMPLATE_DIR: string | null = assetDir("templates");

/** Path prefix of default templates read from the embedded copy. */
const EMBEDDED_PREFIX = "vitrine:templates/";

/** Prefix that forces a name to resolve against the bundled defaults. */
const DEFAULT_PREFIX = "default:";

/** Shape nunjucks expects from `getSource`. */
export interface LoaderSource {
  src: string;
  path: string;
  noCache: boolean;
}

/** Where a cached template was read from, to notice edits. */
interface LoadedFrom {
  path: string;
  mtime: number | null;
}

/**
 * A synchronous nunjucks loader over an ordered list of directories.
 *
 * With user template dirs (`--template-dir`), compiled templates are reused only while the file
 * they came from is unchanged and still the one the name resolves to: editing an override, or
 * adding one that shadows a default, shows on the next request without a restart (as Jinja's
 * `auto_reload` does). Without user dirs nothing is checked.
 */
export class TemplateLoader {
  readonly userDirs: string[];
  readonly pluginDirs: string[] = [];
  /** The default templates' folder; null when they are embedded. */
  readonly defaultDir: string | null;
  #entries: Record<string, unknown> = {};
  #loaded = new Map<string, LoadedFrom>();
  /** Remembered `resolve()` answers (only while there are no user dirs). */
  #resolved = new Map<string, string | null>();
  #view: Record<string, unknown>;

  constructor(userDirs: string[] = [], defaultDir: string | null = DEFAULT_TEMPLATE_DIR) {
    this.userDirs = [...userDirs];
    this.defaultDir = defaultDir;
    this.#view = new Proxy({}, {
      get: (_target, name) => {
        if (typeof name !== "string") return undefined;
        const entry = this.#entries[name];
        if (entry && this.userDirs.length && this.#stale(name)) {
          delete this.#entries[name];
          return undefined;
        }
        return entry;
      },
      set: (_target, name, value) => {
        if (typeof name === "string") this.#entries[name] = value;
        return true;
      },
    });
  }

  /** nunjucks stores compiled templates here (keyed by name); cleared when dirs change. */
  get cache(): Record<string, unknown> {
    return this.#view;
  }

  set cache(value: Record<string, unknown>) {
    this.#entries = { ...value };
    this.#loaded.clear();
  }

  #stale(name: string): boolean {
    const loaded = this.#loaded.get(name);
    if (!loaded) return false;
    const path = this.resolve(name);
    return path !== loaded.path || mtimeOf(path) !== loaded.mtime;
  }

  /** Add a plugin's bundled templates directory (searched after the user dirs). */
  addPluginDir(dir: string): void {
    if (!this.pluginDirs.includes(dir)) this.pluginDirs.push(dir);
    this.cache = {};
    this.#resolved.clear();
  }

  /** Directories searched for a plain (unprefixed) name, in order. */
  searchDirs(): string[] {
    return [...this.userDirs, ...this.pluginDirs, ...(this.defaultDir ? [this.defaultDir] : [])];
  }

  /**
   * Absolute path of the file a name resolves to, or null. Remembered while no `--template-dir`
   * is in use (plugin and default templates do not change while serving); with one, looked up
   * each time, so edits and new files there show at once.
   */
  resolve(name: string): string | null {
    if (this.userDirs.length) return this.#lookup(name);
    if (!this.#resolved.has(name)) this.#resolved.set(name, this.#lookup(name));
    return this.#resolved.get(name)!;
  }

  #lookup(name: string): string | null {
    const forceDefault = name.startsWith(DEFAULT_PREFIX);
    const relative = forceDefault ? name.slice(DEFAULT_PREFIX.length) : name;
    if (!isSafeRelative(relative)) return null;
    const dirs = forceDefault ? (this.defaultDir ? [this.defaultDir] : []) : this.searchDirs();
    for (const dir of dirs) {
      const path = join(dir, relative);
      if (isFile(path)) return path;
    }
    if (this.defaultDir === null && isEmbeddedAsset("templates", relative)) {
      return EMBEDDED_PREFIX + relative;
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
    if (this.userDirs.length) this.#loaded.set(name, { path, mtime: mtimeOf(path) });
    if (path.startsWith(EMBEDDED_PREFIX)) {
      const src = readAssetText("templates", path.slice(EMBEDDED_PREFIX.length)) ?? "";
      return { src, path, noCache: false };
    }
    return { src: Deno.readTextFileSync(path), path, noCache: false };
  }
}

/** Refuse absolute names and `..` segments so a template name cannot escape its folder. */
function isSafeRelative(name: string): boolean {
  if (name === "" || name.startsWith("/") || name.startsWith("\\")) return false;
  const normalized = normalize(name);
  return !normalized.split(sep).includes("..") && !name.includes("\0");
}

function mtimeOf(path: string | null): number | null {
  if (path === null || path.startsWith(EMBEDDED_PREFIX)) return null;
  try {
    return Deno.statSync(path).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}
