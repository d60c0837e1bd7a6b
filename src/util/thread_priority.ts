/**
 * A lower scheduling priority for the calling thread. On Linux the nice value belongs to each
 * thread, so a read worker that takes long queries can step back while the main thread (which
 * accepts connections, answers small queries itself and writes responses) keeps the CPU it
 * needs: on a machine with fewer cores than busy threads, four runaway queries would otherwise
 * share it with the main thread equally.
 *
 * @module
 */

import { withLibc } from "./libc.ts";

const PRIO_PROCESS = 0;

/**
 * Raises the calling thread's nice value by `niceness` (1–19): true when done, false elsewhere
 * than Linux with glibc, or when the call is refused. Never throws.
 */
export function lowerThreadPriority(niceness: number): boolean {
  return withLibc(
    {
      setpriority: { parameters: ["i32", "u32", "i32"], result: "i32" },
      getpriority: { parameters: ["i32", "u32"], result: "i32" },
    },
    ({ setpriority, getpriority }) => {
      // `who` 0 is the calling thread under Linux's per-thread nice values.
      const current = getpriority(PRIO_PROCESS, 0);
      return setpriority(PRIO_PROCESS, 0, Math.min(19, current + niceness)) === 0;
    },
    false,
  );
}
