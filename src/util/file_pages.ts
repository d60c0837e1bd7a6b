/**
 * Gives back the pages of files (Deno's executable, the shared libraries) that a server holds
 * without needing them: those starting touched ({@link releaseFilePages}, once `vitrine serve`
 * listens), and those the last requests touched, once the server is quiet
 * ({@link unmapCleanFilePages}, `cli/quiet_memory.ts`).
 *
 * Why: every page of Deno's executable that code ran from stays in the process's resident set.
 * Starting runs code a server never runs again — TypeScript transpiling and the module graph, npm
 * resolution, reading the configuration — and held 44–51 MB of a 108 MB idle server, where a Deno
 * hello-world holds 34. The kernel only drops such pages under memory pressure, so until then they
 * count in `ps`, in `process_resident_memory_bytes` and in a container's working set.
 *
 * Only clean file pages are given back: a private page the process wrote to (relocations, `.data`)
 * is anonymous memory and stays.
 *
 * @module
 */

import { withLibc } from "./libc.ts";

/** `MADV_DONTNEED` from Linux's <linux/mman-common.h>. */
const MADV_DONTNEED = 4;
/** `MADV_PAGEOUT` from Linux's <linux/mman-common.h> (Linux 5.4 and later). */
const MADV_PAGEOUT = 21;

/** One mapping of `/proc/self/maps` that a file backs. */
interface FileMapping {
  start: bigint;
  length: bigint;
}

/** A `/proc/PID/maps` (or `smaps`) header line: address perms offset device inode path. */
const MAPPING_LINE = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(\/.*)?$/;

/**
 * The file-backed mappings of a `/proc/PID/maps` text: those with an absolute path and an inode
 * (not `[heap]`, `[stack]`, `[vdso]` or anonymous memory).
 */
export function fileMappings(maps: string): FileMapping[] {
  const mappings: FileMapping[] = [];
  for (const line of maps.split("\n")) {
    const match = MAPPING_LINE.exec(line);
    if (!match || match[4] === "0" || !match[5]) continue;
    const start = BigInt(`0x${match[1]}`);
    mappings.push({ start, length: BigInt(`0x${match[2]}`) - start });
  }
  return mappings;
}

/**
 * The file-backed mappings of a `/proc/PID/smaps` text whose pages can be unmapped without losing
 * anything: not writable, and holding no page the process has written to (`Anonymous: 0 kB`; a
 * relocated read-only segment has such pages, and unmapping them would undo its relocations).
 * Dropping such a mapping's pages only unmaps them: the next use maps them again from the file.
 */
export function cleanFileMappings(smaps: string): FileMapping[] {
  const mappings: FileMapping[] = [];
  let current: (FileMapping & { clean: boolean }) | null = null;
  const close = () => {
    if (current?.clean) mappings.push({ start: current.start, length: current.length });
  };
  for (const line of smaps.split("\n")) {
    const match = MAPPING_LINE.exec(line);
    if (match) {
      close();
      const start = BigInt(`0x${match[1]}`);
      const clean = match[4] !== "0" && !!match[5] && !match[3].includes("w");
      current = { start, length: BigInt(`0x${match[2]}`) - start, clean };
    } else if (current && line.startsWith("Anonymous:") && !/^Anonymous:\s+0 kB/.test(line)) {
      current.clean = false;
    }
  }
  close();
  return mappings;
}

/**
 * Asks the kernel to reclaim this process's clean file pages now (`MADV_PAGEOUT`): they leave the
 * page cache too, unless another process maps them (so copies of `serve --processes N` keep
 * sharing theirs). For start-up, whose pages a server never needs again. Returns how many
 * mappings the kernel accepted the advice for; 0 elsewhere than Linux, or where the kernel or a
 * sandbox refuses it (it is only advice: nothing depends on it). Never throws.
 */
export function releaseFilePages(): number {
  return advise(fileMappings(Deno.readTextFileSync("/proc/self/maps")), MADV_PAGEOUT);
}

/**
 * Unmaps this process's clean file pages ({@link cleanFileMappings}, `MADV_DONTNEED`), leaving
 * them in the kernel's page cache: code that runs again maps its pages back with a minor fault
 * each, too few to see in the next request's time, where paging them out made it read them from
 * the disk again (20 ms). For a quiet server. `/proc/self/smaps` (5–10 ms of the kernel's time)
 * is read off this thread. Returns how many mappings were unmapped; never throws.
 */
export async function unmapCleanFilePages(): Promise<number> {
  if (Deno.build.os !== "linux") return 0;
  let smaps: string;
  try {
    smaps = await Deno.readTextFile("/proc/self/smaps");
  } catch {
    return 0;
  }
  return advise(cleanFileMappings(smaps), MADV_DONTNEED);
}

function advise(mappings: FileMapping[], advice: number): number {
  return withLibc(
    { madvise: { parameters: ["pointer", "usize", "i32"], result: "i32" } },
    ({ madvise }) => {
      let accepted = 0;
      for (const { start, length } of mappings) {
        if (madvise(Deno.UnsafePointer.create(start), length, advice) === 0) accepted++;
      }
      return accepted;
    },
    0,
  );
}
