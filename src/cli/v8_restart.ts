/**
 * A server started without Vitrine's V8 flags (`deno run -A cli.ts data.db`, the design card's
 * plain command) restarts itself with them, so every way of starting it bounds its memory the
 * same way (`util/v8_flags.ts`, issue 42). V8 reads its flags once, when the process starts, so
 * the only way to have them is a new process image: `execve(2)` of the same executable with the
 * same command line (`/proc/self/cmdline`, Deno's own options and permissions included) and
 * `DENO_V8_FLAGS` added to the environment, which Deno reads as if `--v8-flags` had been given.
 * `execve` keeps the process id, the standard streams and the parent, so a supervisor, a shell's
 * job control, signals and the exit code see one process as before; it costs one more start of
 * Deno (a few hundred milliseconds from source).
 *
 * Nothing happens when the flags are there already (`--expose-gc` defines `gc`; the environment
 * names them), elsewhere than Linux, without the FFI and read permissions it needs (it never
 * prompts), or when `execve` fails: the server then runs as started.
 *
 * @module
 */

import { V8_FLAGS } from "../util/v8_flags.ts";
import { withLibc } from "../util/libc.ts";

/** Environment variable Deno reads V8 flags from (comma-separated, as `--v8-flags=`). */
export const V8_FLAGS_ENV = "DENO_V8_FLAGS";

/**
 * Built-in commands that end at once: restarting them would only make them slower. `insert` is
 * not one: a long import with the flags peaks at 75 MiB of RssAnon for a 63 MB CSV, against
 * 159–174 MiB without them (V8 lets the garbage of parsed rows pile up first).
 */
const ONE_SHOT = new Set([
  "inspect",
  "plugins",
  "create-token",
  "package",
  "install",
  "uninstall",
  "publish",
  "help",
  "--help",
  "-h",
  "--version",
]);

/** True when `args` (the CLI's, without the program) may start a server: `serve`, the default. */
export function mayServe(args: readonly string[]): boolean {
  return args.length === 0 || !ONE_SHOT.has(args[0]);
}

/** True when this process already runs with Vitrine's V8 flags (or was restarted for them). */
export function hasV8Flags(env: string | undefined = Deno.env.get(V8_FLAGS_ENV)): boolean {
  if (typeof (globalThis as { gc?: unknown }).gc === "function") return true;
  // Loop guard: a restarted process has them in its environment, whatever V8 made of them.
  return env !== undefined && V8_FLAGS.every((flag) => env.split(",").includes(flag));
}

/** `DENO_V8_FLAGS` with Vitrine's flags added to what it held (those already there kept). */
export function withVitrineFlags(env: string | undefined): string {
  const flags = env ? env.split(",").filter((flag) => flag !== "") : [];
  for (const flag of V8_FLAGS) if (!flags.includes(flag)) flags.push(flag);
  return flags.join(",");
}

/**
 * Replaces this process with the same command run with Vitrine's V8 flags, when `args` may serve
 * and the flags are missing. Returns only when it did not (see the module comment).
 */
export function restartWithV8Flags(args: readonly string[]): void {
  if (Deno.build.os !== "linux" || !mayServe(args) || hasV8Flags()) return;
  const granted = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state === "granted";
  if (!granted({ name: "ffi" }) || !granted({ name: "read", path: "/proc/self/cmdline" })) return;
  if (!granted({ name: "env" })) return;
  let argv: string[];
  try {
    argv = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
  } catch {
    return;
  }
  if (argv.at(-1) === "") argv.pop();
  if (argv.length === 0) return;
  const env = { ...Deno.env.toObject() };
  env[V8_FLAGS_ENV] = withVitrineFlags(env[V8_FLAGS_ENV]);
  const strings = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  execve(Deno.execPath(), argv, strings);
}

/** `execve(2)` through libc; returns only when it failed. */
function execve(path: string, argv: string[], env: string[]): void {
  const encoder = new TextEncoder();
  const cString = (text: string) => encoder.encode(`${text}\0`);
  // Every buffer stays referenced until execve returns (it never does when it works).
  const pathBytes = cString(path);
  const argBytes = argv.map(cString);
  const envBytes = env.map(cString);
  const pointers = (buffers: Uint8Array[]) => {
    const array = new BigUint64Array(buffers.length + 1);
    buffers.forEach((buffer, i) => {
      array[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buffer)));
    });
    return array;
  };
  const argPointers = pointers(argBytes);
  const envPointers = pointers(envBytes);
  withLibc(
    { execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" } },
    ({ execve }) => execve(pathBytes, argPointers, envPointers),
    -1,
  );
}
