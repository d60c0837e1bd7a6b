/**
 * Tells glibc's allocator to give freed memory back to the system sooner. A server process
 * calls {@link returnFreedMemorySooner} once, before its read workers start; a library user's
 * process is left alone. {@link returnFreedMemoryNow} is for a process that goes idle after work.
 *
 * Why: an export moves hundreds of buffers of a few hundred KB through the process. glibc serves
 * the first ones with `mmap` and returns them on `free`, but each such free raises its
 * threshold for `mmap` (up to 32 MB), so the later ones come from the heap arenas, which keep
 * what was freed. Each thread that allocates may get an arena of its own. Measured on a
 * 500k-row CSV export (bench/load.ts "stream"), the server's resident memory after four exports
 * went from 148 MB to 128 MB with these settings, and its speed did not change.
 *
 * @module
 */

// mallopt(3) parameter numbers, from glibc's <malloc.h>.
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const M_ARENA_MAX = -8;

/** Blocks of this size and over get their own mapping, returned to the system when freed. */
const MMAP_THRESHOLD_BYTES = 64 * 1024;
/** Free memory at the top of a heap beyond this is returned to the system. */
const TRIM_THRESHOLD_BYTES = 64 * 1024;
/** At most this many heap arenas for all threads (glibc's default is 8 per core). */
const ARENA_MAX = 2;

/**
 * Applies the settings above: true when done, false elsewhere than Linux with glibc (where the
 * allocator has other rules, or `mallopt` is missing). Never throws.
 */
export function returnFreedMemorySooner(): boolean {
  if (Deno.build.os !== "linux") return false;
  let libc: Deno.DynamicLibrary<{ mallopt: { parameters: ["i32", "i32"]; result: "i32" } }> | null =
    null;
  try {
    libc = Deno.dlopen("libc.so.6", { mallopt: { parameters: ["i32", "i32"], result: "i32" } });
    const { mallopt } = libc.symbols;
    // mallopt answers 1 on success. Setting either threshold also stops glibc moving it.
    return [
      mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES),
      mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES),
      mallopt(M_ARENA_MAX, ARENA_MAX),
    ].every((answer) => answer === 1);
  } catch {
    return false;
  } finally {
    libc?.close();
  }
}

/**
 * Gives every heap arena's free pages back to the system (`malloc_trim(0)`), not only those at
 * the top of a heap, which is all the trim threshold above reaches: after a burst of queries the
 * worker threads' arenas keep megabytes of freed blocks between live ones. It walks every arena
 * and takes a few milliseconds, so it is for a thread with nothing else to do. True when done;
 * false elsewhere than Linux with glibc. Never throws.
 */
export function returnFreedMemoryNow(): boolean {
  if (Deno.build.os !== "linux") return false;
  let libc: Deno.DynamicLibrary<{ malloc_trim: { parameters: ["usize"]; result: "i32" } }> | null =
    null;
  try {
    libc = Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } });
    libc.symbols.malloc_trim(0n);
    return true;
  } catch {
    return false;
  } finally {
    libc?.close();
  }
}
