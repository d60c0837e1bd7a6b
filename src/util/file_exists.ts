/**
 * Whether a path exists, asked the cheap way: libc's `access(path, F_OK)` answers in about a
 * microsecond, where Deno's own file calls report a missing file by throwing, which costs some
 * 8 µs (the error is built in Rust and again in JavaScript; a shorter stack trace does not help).
 * A question asked on every write request (LiteFS's `.primary`, absent on every node that may
 * write) is worth the difference. Elsewhere than Linux with glibc, `Deno.lstatSync` answers.
 *
 * @module
 */

const SYMBOLS = {
  access: { parameters: ["buffer", "i32"], result: "i32" },
} as const;

/** `F_OK` from <unistd.h>: the path exists. */
const F_OK = 0;

type Access = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"]["access"];
/** This thread's libc `access`, opened once and kept (each worker has its own), or null. */
let access: Access | null | undefined;

function openAccess(): Access | null {
  if (Deno.build.os !== "linux") return null;
  try {
    return Deno.dlopen("libc.so.6", SYMBOLS).symbols.access;
  } catch {
    return null;
  }
}

const encoder = new TextEncoder();

/**
 * True when `path` names something (a file, a folder, a link that leads somewhere) the process
 * can reach; false when it is missing or a folder on the way cannot be searched. Never throws.
 */
export function pathExists(path: string): boolean {
  const call = access === undefined ? (access = openAccess()) : access;
  if (call) return call(encoder.encode(`${path}\0`), F_OK) === 0;
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
