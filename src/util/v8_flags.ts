/**
 * The V8 flags every launch command Vitrine writes or documents passes to Deno (`deno task
 * serve`, `deno task compile`, the installed `vitrine` command, the Dockerfile of `vitrine
 * package` / `publish`). They bound the memory of each isolate (the main thread and every read
 * worker) at a few percent of CPU:
 *
 * - `--max-semi-space-size=8`: V8's young generation grows to 64 MB per isolate under load by
 *   default and stays there; with 8 MB semi-spaces it stays at 16 MB;
 * - `--heap-growing-percent=50`: after a full collection the old generation may grow by half of
 *   what survived before the next one; with V8's own heuristics a server whose live heap is 20 MB
 *   sat on 80 MB of old generation;
 * - `--expose-gc`: lets a streamed export ask for a young-generation collection every few MB
 *   (`util/young_garbage.ts`), which frees the chunks already sent; without it they pile up to
 *   V8's 64 MB external-memory limit first. Without the flag the export still works, only with
 *   that much more memory.
 *
 * They cannot be set from inside a running program: V8 reads them when an isolate is created,
 * and `node:v8`'s `setFlagsFromString` neither resizes the main isolate's heap nor reaches the
 * workers Deno starts later (measured in docs/security.md "Memory"). So a server started without
 * them restarts itself with them, as the same process (`cli/v8_restart.ts`).
 *
 * @module
 */

/** The flags, as `--v8-flags=` takes them. */
export const V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=8",
  "--heap-growing-percent=50",
  "--expose-gc",
];

/** The `deno run` option carrying {@link V8_FLAGS}. */
export const V8_FLAGS_OPTION = `--v8-flags=${V8_FLAGS.join(",")}`;
