/**
 * Questions about paths that must not throw: a missing file, a folder in its place or a path
 * the process may not read all answer false.
 *
 * @module
 */

/** True when `path` names a regular file this process can stat. */
export function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** True when `path` names a directory this process can stat. */
export function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
