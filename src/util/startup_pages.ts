/**
 * Gives back the pages of files (Deno's executable, the shared libraries) that starting touched:
 * `vitrine serve` calls {@link releaseFilePages} once it listens.
 *
 * Why: starting runs code a server never runs again — TypeScript transpiling and the module
 * graph, npm resolution, reading the configuration — and every page of Deno's executable it
 * touched stays in the process's resident set (44–51 MB of a 108 MB idle server, where a Deno
 * hello-world holds 34). The kernel only drops such pages under memory pressure, so until then
 * they count in `ps`, in `process_resident_memory_bytes` and in a container's working set.
 * `madvise(MADV_PAGEOUT)` reclaims them at once; the pages serving needs come back on first use,
 * from the page cache or the disk, and stay (during an export after it: 36 MB of file pages, not 51).
 *
 * Only clean file pages are reclaimed: a private page the process wrote to (relocations, `.data`)
 * is anonymous memory and stays, and a page another process maps too is left alone, so copies of
 * `serve --processes N` keep sharing theirs.
 *
 * @module
 */

import { withLibc } from "./libc.ts";

/** `MADV_PAGEOUT` from Linux's <linux/mman-common.h> (Linux 5.4 and later). */
const MADV_PAGEOUT = 21;

/** One mapping of `/proc/self/maps` that a file backs. */
interface FileMapping {
  start: bigint;
  length: bigint;
}

/**
 * The file-backed mappings of a `/proc/PID/maps` text: those with an absolute path and an inode
 * (not `[heap]`, `[stack]`, `[vdso]` or anonymous memory).
 */
export function fileMappings(maps: string): FileMapping[] {
  const mappings: FileMapping[] = [];
  for (const line of maps.split("\n")) {
    // address perms offset device inode path
    const match = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s+(\/.*)$/.exec(line);
    if (!match || match[3] === "0") continue;
    const start = BigInt(`0x${match[1]}`);
    mappings.push({ start, length: BigInt(`0x${match[2]}`) - start });
  }
  return mappings;
}

/**
 * Asks the kernel to reclaim this process's clean file pages now. Returns how many mappings it
 * accepted the advice for; 0 elsewhere than Linux, or where the kernel or a sandbox refuses it
 * (it is only advice: nothing depends on it). Never throws.
 */
export function releaseFilePages(): number {
  return withLibc(
    { madvise: { parameters: ["pointer", "usize", "i32"], result: "i32" } },
    ({ madvise }) => {
      let accepted = 0;
      for (const { start, length } of fileMappings(Deno.readTextFileSync("/proc/self/maps"))) {
        if (madvise(Deno.UnsafePointer.create(start), length, MADV_PAGEOUT) === 0) accepted++;
      }
      return accepted;
    },
    0,
  );
}
