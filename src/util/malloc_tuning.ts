/**
 * Tells glibc's allocator to give freed memory back to the system sooner. A server process
 * calls {@link returnFreedMemorySooner} once, before its read workers start; a library user's
 * process is left alone. {@link returnFreedMemoryNow} is for a process that goes idle after work,
 * or has just finished starting (`cli/serve.ts`).
 *
 * Why: an export moves hundreds of buffers of a few hundred KB through the process, and each
 * thread that allocates may get an arena of its own, which keeps what was freed. Setting either
 * threshold below also stops glibc moving its `mmap` threshold up (to 32 MB) as large blocks are
 * freed. The thresholds must stay above what a compressor allocates per response, though: brotli
 * takes between 512 KB and 1 MB for each body, zlib's gzip several blocks of 64 KB or more. At
 * 64 KB each of them was mapped and unmapped for every response, its pages faulted in afresh:
 * brotli of a 14 KB JSON page took 530 µs instead of 125, and served brotli JSON fell to 1,966
 * req/s against 5,068 at 2 MB (bench/load.ts "gzip"). At 2 MB exports keep 5–10 MB more after
 * they end, until an idle pool returns it (`returnFreedMemoryNow`, `db/pool.ts`).
 *
 * @module
 */

import { withLibc } from "./libc.ts";

// mallopt(3) parameter numbers, from glibc's <malloc.h>.
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const M_ARENA_MAX = -8;

/**
 * Blocks of this size and over get their own mapping, returned to the system when freed. Above a
 * compressor's working memory (see the module comment).
 */
const MMAP_THRESHOLD_BYTES = 2 * 1024 * 1024;
/** Free memory at the top of a heap beyond this is returned to the system. */
const TRIM_THRESHOLD_BYTES = 2 * 1024 * 1024;
/** At most this many heap arenas for all threads (glibc's default is 8 per core). */
const ARENA_MAX = 2;

/**
 * Applies the settings above: true when done, false elsewhere than Linux with glibc (where the
 * allocator has other rules, or `mallopt` is missing). Never throws.
 */
export function returnFreedMemorySooner(): boolean {
  return withLibc(
    { mallopt: { parameters: ["i32", "i32"], result: "i32" } },
    // mallopt answers 1 on success. Setting either threshold also stops glibc moving it.
    ({ mallopt }) =>
      [
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES),
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES),
        mallopt(M_ARENA_MAX, ARENA_MAX),
      ].every((answer) => answer === 1),
    false,
  );
}

/**
 * Gives every heap arena's free pages back to the system (`malloc_trim(0)`), not only those at
 * the top of a heap, which is all the trim threshold above reaches: after a burst of queries the
 * worker threads' arenas keep megabytes of freed blocks between live ones. It walks every arena
 * and takes a few milliseconds, so it is for a thread with nothing else to do. True when done;
 * false elsewhere than Linux with glibc. Never throws.
 */
export function returnFreedMemoryNow(): boolean {
  return withLibc(
    { malloc_trim: { parameters: ["usize"], result: "i32" } },
    ({ malloc_trim }) => {
      malloc_trim(0n);
      return true;
    },
    false,
  );
}
