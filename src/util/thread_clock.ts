/**
 * The CPU time the calling thread has used, for costs that a busy machine cannot inflate. A
 * query's wall-clock time includes the time its thread waited for a core: on two cores shared by
 * sixteen clients a 4 ms query was measured at 20–40 ms, counted as long, sent to the slower lane,
 * waited longer still and failed at its deadline (issue 42). Its thread's CPU time stays 4 ms.
 *
 * @module
 */

/** `CLOCK_THREAD_CPUTIME_ID` from Linux's <time.h>. */
const CLOCK_THREAD_CPUTIME_ID = 3;

const SYMBOLS = {
  clock_gettime: { parameters: ["i32", "buffer"], result: "i32" },
} as const;

/** `struct timespec` on 64-bit Linux: seconds and nanoseconds, two 64-bit integers. */
const timespec = new BigInt64Array(2);
/** This thread's libc, opened once (each worker has its own module instance), or null. */
let clock: ClockGettime | null | undefined;
type ClockGettime = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"]["clock_gettime"];

function openClock(): ClockGettime | null {
  if (Deno.build.os !== "linux") return null;
  try {
    const libc = Deno.dlopen("libc.so.6", SYMBOLS);
    // Kept open for the life of the thread: every query reads the clock twice.
    const read = libc.symbols.clock_gettime;
    return read(CLOCK_THREAD_CPUTIME_ID, timespec) === 0 ? read : null;
  } catch {
    return null;
  }
}

/**
 * Milliseconds of CPU the calling thread has used so far (only differences mean something).
 * Elsewhere than Linux with glibc it falls back to the wall clock (`performance.now()`), which
 * is right on an idle machine. Never throws.
 */
export function threadCpuMs(): number {
  const read = clock === undefined ? (clock = openClock()) : clock;
  if (!read || read(CLOCK_THREAD_CPUTIME_ID, timespec) !== 0) return performance.now();
  return Number(timespec[0]) * 1000 + Number(timespec[1]) / 1e6;
}

/** True when {@link threadCpuMs} reads the thread's CPU time (not the wall clock). */
export function measuresThreadCpu(): boolean {
  if (clock === undefined) clock = openClock();
  return clock !== null;
}
