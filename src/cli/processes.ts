/**
 * `vitrine serve --processes N`: one server per core on one port. The command starts N copies
 * of itself, each a complete Vitrine listening with `SO_REUSEPORT` (`--reuse-port`), and the
 * kernel spreads new connections across them (Linux). This process only supervises: it hands
 * every copy the same secret, forwards SIGTERM/SIGINT, starts a copy again when one dies while
 * serving, and stops them all when one cannot start. A copy whose supervisor is killed stops
 * by itself (serve.ts).
 *
 * The copies are the stateless replicas of docs/scaling.md on one machine: nothing is shared
 * but the database files (writes from several processes are safe, `write_lock.ts`) and a folder
 * where each writes its metrics, so that `/-/metrics` answers for all of them; in-memory
 * databases and plugin state are per process.
 *
 * @module
 */
import { V8_FLAGS_OPTION } from "../util/v8_flags.ts";
import { CliExit } from "./exit.ts";
import { instanceSecret } from "../auth/signer.ts";

/** Environment variable telling a copy which one it is: "2/4". */
export const PROCESS_ENV = "VITRINE_PROCESS";
/** Environment variable with the supervisor's pid: a copy stops when its parent is another. */
export const SUPERVISOR_ENV = "VITRINE_SUPERVISOR";
/**
 * Environment variable naming a folder the copies write their metrics to, so that `/-/metrics`
 * on any copy answers for all (`ServiceMetrics.shareWith`). The supervisor makes and removes it.
 */
export const METRICS_DIR_ENV = "VITRINE_METRICS_DIR";

/** A copy that exits with an error sooner than this after it started could not start. */
const START_GRACE_MS = 10_000;
/** Wait before starting a copy again that died while serving. */
const RESTART_DELAY_MS = 1_000;

/** Parses `--processes`: a whole number from 1 up, or `auto` (one per core). */
export function processCount(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === "auto") return navigator.hardwareConcurrency || 1;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 256) {
    throw new CliExit(1, `Error: --processes takes a whole number from 1 to 256 or "auto"`);
  }
  return count;
}

/** What the supervisor needs to start its copies. */
export interface SuperviseOptions {
  /** The command's own arguments, as typed. */
  args: readonly string[];
  count: number;
  host: string;
  port: number;
}

/**
 * Starts `count` copies of this command on one port and supervises them until a signal stops
 * them (resolves to the highest of their exit codes) or one fails to start (throws CliExit with
 * its exit code).
 */
export async function supervise(options: SuperviseOptions): Promise<number> {
  if (Deno.build.os !== "linux") {
    throw new CliExit(
      1,
      "Error: --processes needs Linux (SO_REUSEPORT spreads connections only there); run one " +
        "Vitrine per port behind a load balancer instead (docs/scaling.md)",
    );
  }
  const everything = ["read", "write", "net", "env", "run", "ffi", "sys"] as const;
  const missing = everything.filter((name) =>
    Deno.permissions.querySync({ name }).state !== "granted"
  );
  if (missing.length) {
    throw new CliExit(
      1,
      `Error: --processes starts copies of this command with every permission: run it with -A ` +
        `(missing: ${missing.join(", ")})`,
    );
  }
  const port = options.port === 0 ? freePort(options.host) : options.port;
  // Cookies, CSRF tokens and API tokens signed by one copy must verify on every other.
  const secret = instanceSecret(null);
  const metricsDir = Deno.makeTempDirSync({ prefix: "vitrine-metrics-" });
  const base = copyArgs(options.args, port);
  const copies: (Deno.ChildProcess | null)[] = new Array(options.count).fill(null);
  let running = 0;
  let stopping = false;
  let failure: { index: number; code: number } | null = null;
  let worstCode = 0;
  let allEnded!: () => void;
  const ended = new Promise<void>((resolve) => allEnded = resolve);

  const stopAll = (signal: Deno.Signal) => {
    stopping = true;
    for (const child of copies) {
      try {
        child?.kill(signal);
      } catch {
        // it has just ended
      }
    }
    if (running === 0) allEnded();
  };

  const start = (index: number) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [...launcher(), ...base],
      env: {
        VITRINE_SECRET: secret,
        [PROCESS_ENV]: `${index + 1}/${options.count}`,
        [SUPERVISOR_ENV]: String(Deno.pid),
        [METRICS_DIR_ENV]: metricsDir,
      },
      stdin: "null",
      // A process group of its own: Ctrl+C in a terminal signals the whole foreground group,
      // and a copy that got SIGINT from the terminal and again from this supervisor would take
      // the second as "stop now" instead of draining.
      detached: true,
    }).spawn();
    copies[index] = child;
    running++;
    const startedAt = performance.now();
    child.status.then(async (status) => {
      copies[index] = null;
      running--;
      if (stopping) {
        worstCode = Math.max(worstCode, status.code);
        if (running === 0) allEnded();
        return;
      }
      // An error exit soon after starting is a start-up failure (a broken plugin, say): every
      // copy would fail the same way. A signal (the OOM killer, an operator) is not.
      const early = performance.now() - startedAt < START_GRACE_MS;
      if (early && status.signal === null && status.code !== 0) {
        failure ??= { index, code: status.code || 1 };
        // SIGINT: the others stop without the `shutdown_delay_ms` a SIGTERM waits first.
        return stopAll("SIGINT");
      }
      console.error(
        `Vitrine: process ${index + 1} of ${options.count} (pid ${child.pid}) ended ` +
          `(${status.signal ?? `exit code ${status.code}`}); starting it again`,
      );
      await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
      if (!stopping) start(index);
      else if (running === 0) allEnded();
    });
  };

  for (let index = 0; index < options.count; index++) start(index);
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host;
  console.log(
    `Vitrine: ${options.count} processes share http://${shown}:${port}/ ` +
      `(pids ${copies.map((child) => child?.pid).join(", ")})`,
  );
  const listeners: [Deno.Signal, () => void][] = [];
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    // A second signal is forwarded too: each copy then stops at once.
    const listener = () => stopAll(signal);
    Deno.addSignalListener(signal, listener);
    listeners.push([signal, listener]);
  }
  await ended;
  for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  Deno.removeSync(metricsDir, { recursive: true });
  if (failure !== null) {
    const { index, code } = failure;
    throw new CliExit(
      code,
      `Vitrine: process ${index + 1} of ${options.count} could not start (exit code ${code}); ` +
        "stopped the others",
    );
  }
  return worstCode;
}

/** How this program is started again: the binary alone, or `deno run` with its module. */
export function launcher(): string[] {
  if (Deno.build.standalone) return [];
  return ["run", "-A", "--unstable-net", V8_FLAGS_OPTION, Deno.mainModule];
}

/** The arguments of each copy: these, without `--processes`, listening with `--reuse-port`. */
export function copyArgs(args: readonly string[], port: number): string[] {
  const copy: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--processes") {
      i++;
      continue;
    }
    if (arg.startsWith("--processes=")) continue;
    copy.push(arg);
  }
  // Commander keeps the last value of an option given twice.
  return [...copy, "--reuse-port", "--port", String(port)];
}

/** A port free on `host` right now (for `-p 0`: every copy needs the same one). */
export function freePort(host: string): number {
  const listener = Deno.listen({ hostname: host, port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
