/**
 * A real `vitrine serve` in a child process, for tests that must kill, restart or measure the
 * server from outside (SIGKILL durability, memory bounds).
 *
 * @module
 */

import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** A running server process. */
export interface ServerProcess {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:40123/`. */
  url: string;
  /** The process id (for reading /proc/<pid>/status). */
  pid: number;
  /** Sends SIGKILL and waits for the process to end. */
  kill(): Promise<void>;
  /** Sends SIGTERM and waits for the process to end. */
  stop(): Promise<void>;
  /** Everything the server wrote to stderr (complete once it has ended). */
  stderr: Promise<string>;
}

/**
 * Starts `vitrine serve ARGS -p 0` and resolves once it prints where it listens. `denoFlags` go
 * before the script; by default the V8 flags every shipped launch command passes, so that what
 * is measured is the server as shipped (`[]` runs it without them).
 */
export async function startServer(
  args: string[],
  denoFlags: string[] = [V8_FLAGS_OPTION],
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", ...denoFlags, CLI, ...args, "-p", "0"],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let match: RegExpExecArray | null = null;
  while (!(match = /http:\/\/127\.0\.0\.1:\d+\//.exec(text))) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error(`The server did not start: ${text}\n${await stderr}`);
    }
    text += value;
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  let ended = false;
  const end = async (signal: Deno.Signal) => {
    if (!ended) {
      ended = true;
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    }
    await child.status;
    await stderr.catch(() => "");
  };
  return {
    url: match[0],
    pid: child.pid,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
    stderr,
  };
}

/** Resident set size of process `pid` in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}
