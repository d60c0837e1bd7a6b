/**
 * Calls into glibc (`libc.so.6`) for a moment, for the few tunings a server makes of its own
 * process: malloc's settings, a thread's priority, pages given back.
 *
 * @module
 */

/**
 * Opens libc with `symbols`, runs `use` on them and closes it again. Answers `fallback` elsewhere
 * than Linux, where the library or a symbol is missing (musl, a sandbox), or when `use` throws:
 * every caller is an optimisation that the server runs without. Never throws.
 */
export function withLibc<const S extends Deno.ForeignLibraryInterface, T>(
  symbols: S,
  use: (libc: Deno.DynamicLibrary<S>["symbols"]) => T,
  fallback: T,
): T {
  if (Deno.build.os !== "linux") return fallback;
  let libc: Deno.DynamicLibrary<S> | null = null;
  try {
    libc = Deno.dlopen("libc.so.6", symbols);
    return use(libc.symbols);
  } catch {
    return fallback;
  } finally {
    libc?.close();
  }
}
