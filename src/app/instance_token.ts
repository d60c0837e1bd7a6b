/**
 * What the pages of an immutable database depend on besides the request and the file: the
 * Vitrine version, settings, metadata, the databases served, the plugins' code and the templates.
 * Their SHA-256 goes into every `ETag` (`conditional.ts`). Replicas started from the same image
 * with the same configuration compute the same token, so a tag one replica gave is answered
 * `304` by another; change any of those inputs — a new release, a plugin, a template — and every
 * tag changes with it.
 *
 * Computed once per service, when the first tagged page is asked for (plugins are loaded by then).
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { join, resolve } from "node:path";
import type { AppHost } from "./host.ts";
import { VERSION } from "../version.ts";

/** Files larger than this are identified by their size instead of their contents. */
const READ_LIMIT_BYTES = 8 << 20;

const tokens = new WeakMap<object, string>();

/** The token of `svc`'s configuration (32 hex digits). */
export function instanceToken(svc: AppHost): string {
  let token = tokens.get(svc);
  if (!token) tokens.set(svc, token = computeToken(svc));
  return token;
}

function computeToken(svc: AppHost): string {
  const hash = createHash("sha256");
  const options = svc.options;
  const text = (label: string, value: unknown) =>
    hash.update(`${label}\u0000${JSON.stringify(value) ?? ""}\u0000`);
  text("version", [VERSION, options.version_note ?? null]);
  text("settings", svc.settings.toJSON());
  text("metadata", svc.metadata().data);
  text("options", {
    crossdb: options.crossdb ?? false,
    inspect_data: options.inspect_data ?? null,
    static_mounts: options.static_mounts ?? [],
  });
  text(
    "databases",
    [...svc.databases.values()].map((db) => [db.name, db.route, db.hash, db.is_mutable]),
  );
  hash.update(svc.pm.implementationsText());
  const directories = [
    options.template_dir,
    options.plugins_dir,
    ...svc.pm.templateDirs(),
  ].filter((dir): dir is string => Boolean(dir));
  for (const dir of directories) hashTree(hash, resolve(dir), "");
  for (const specifier of options.plugins ?? []) {
    text("plugin", specifier);
    if (!/^(npm|jsr|https?):/.test(specifier)) hashFile(hash, resolve(specifier));
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Names (relative to the tree, so that replicas in other directories agree) and contents of
 * every file under `dir`, in a fixed order; nothing when unreadable.
 */
function hashTree(hash: Hash, dir: string, relative: string): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const name = `${relative}/${entry.name}`;
    if (entry.isDirectory) hashTree(hash, join(dir, entry.name), name);
    else {
      hash.update(`${name}\u0000`);
      hashFile(hash, join(dir, entry.name));
    }
  }
}

function hashFile(hash: Hash, path: string): void {
  try {
    const size = Deno.statSync(path).size;
    hash.update(size <= READ_LIMIT_BYTES ? Deno.readFileSync(path) : `${size} bytes`);
  } catch { /* unreadable or removed meanwhile: its name alone */ }
}
