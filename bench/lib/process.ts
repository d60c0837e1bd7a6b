/**
 * Servers the benchmarks start as separate processes: a free port, a command started from the
 * repository root, and a wait until it answers.
 *
 * @module
 */

const root = new URL("../..", import.meta.url).pathname;

/** A port nothing listens on right now (taken and released at once). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const soloCopies = new Map<string, string>();

/**
 * A copy of the running Deno executable, made once a run, for the servers whose memory is
 * measured: the benchmark is itself a Deno process, and pages of the executable it has in the
 * kernel's cache would be found there by the server too. Deployed, a server is the only process
 * running its executable (one container, one machine); started from a copy of its own, it is here
 * too.
 * Each `role` gets a copy of its own, so that two measured servers share no pages either.
 */
export function soloDenoPath(role: string): string {
  const made = soloCopies.get(role);
  if (made) return made;
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-deno-" });
  const copy = `${dir}/deno`;
  Deno.copyFileSync(Deno.execPath(), copy);
  Deno.chmodSync(copy, 0o755);
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  soloCopies.set(role, copy);
  return copy;
}

/** A started server process. */
export interface ServerProcess {
  pid: number;
  base: string;
  port: number;
  /** SIGTERM, then wait for the process to end. */
  stop(): Promise<void>;
}

/**
 * Starts `command` (its first item is the program) in `cwd` (the repository root by default) and
 * resolves once `http://127.0.0.1:<port><ready>` answers (or after `timeoutMs`, 30 s by default,
 * of trying).
 */
export async function startServer(
  command: string[],
  port: number,
  ready = "/",
  timeoutMs = 30_000,
  cwd = root,
): Promise<ServerProcess> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    cwd,
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < timeoutMs / 100; i++) {
    try {
      await (await fetch(`${base}${ready}`)).body?.cancel();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    pid: child.pid,
    base,
    port,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
