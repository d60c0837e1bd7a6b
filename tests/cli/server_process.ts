/**
 * Starts `vitrine` (from source, or any script such as the bundle) as a real server process on a
 * free port and returns its base URL; `stop()` ends it with SIGTERM.
 */

/** A running server process. */
export interface ServerProcess {
  /** Base URL ending in `/`, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  /** Everything the process printed so far on stderr (for failure messages). */
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Runs `deno run -A SCRIPT ARGS -p 0` in `cwd` and waits for the "serving on" line. */
export function startServer(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  return startDeno(["run", "-A", "--no-lock", script, ...args, "-p", "0"], options);
}

/**
 * Runs `deno DENO_ARGS` (a server on 127.0.0.1) and waits for the "serving on" line; `ready`
 * matches another line (`url` is then what it matched).
 */
export async function startDeno(
  denoArgs: string[],
  options: { cwd?: string; env?: Record<string, string>; ready?: RegExp } = {},
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: denoArgs,
    cwd: options.cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  let errors = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (errors += chunk) }),
  ).catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const pattern = options.ready ?? /http:\/\/127\.0\.0\.1:\d+\//;
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      await stderrDone;
      throw new Error(`The server exited before listening:\n${text}\n${errors}`);
    }
    text += value;
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done) { /* drain */ }
  })();
  return {
    url: pattern.exec(text)![0],
    stderr: () => errors,
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await drained;
      await stderrDone;
    },
  };
}
