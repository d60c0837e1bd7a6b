/**
 * `vitrine serve --reload`, for development: this process only watches files and runs the
 * server as a child (the same command without `--reload`), which it stops and starts again
 * when a watched file changes. Plugins are ES modules, which a process imports once: a fresh
 * process is the only way to run an edited plugin. The child gets a fixed port (also for
 * `-p 0`) and secret, so the address and the signed-in cookie stay valid across restarts.
 *
 * Watched: the metadata and configuration files, `--template-dir`, `--plugins-dir`, local
 * `--plugin` files and folders, a configuration directory, immutable files and served data
 * files. Writable databases are not: every write would restart the server.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { instanceSecret } from "../auth/signer.ts";
import { freePort, launcher } from "./processes.ts";
import { isDirectory } from "../util/files.ts";

/** What `--reload` runs and watches. */
export interface ReloadOptions {
  /** The command's own arguments, as typed. */
  args: readonly string[];
  /** Files and folders whose changes restart the server; missing ones are skipped. */
  watch: readonly string[];
  host: string;
  port: number;
  /** `--uds`: the child listens there; the port is then left alone. */
  uds?: string;
}

/** Changes within this many milliseconds of each other (an editor's save) restart once. */
const SETTLE_MS = 150;

/** SQLite's side files change with every write, wherever a database lives. */
const SQLITE_SIDE_FILE = /-(wal|shm|journal)$/;
/** Databases inside a watched folder (a configuration directory) are written while served. */
const SQLITE_FILE = /\.(db|sqlite|sqlite3)$/;

/**
 * Runs the server in a child process, restarting it on changes, until SIGINT or SIGTERM
 * (forwarded to the child, which drains as usual). Resolves to the child's last exit code.
 */
export async function runWithReload(options: ReloadOptions): Promise<number> {
  const port = options.uds !== undefined || options.port !== 0
    ? options.port
    : freePort(options.host);
  const args = childArgs(options.args, options.uds === undefined ? port : null);
  const secret = instanceSecret(null);
  const { files, folders } = watchTargets(options.watch);
  let child: Deno.ChildProcess | null = null;
  let stopping = false;
  let lastCode = 0;

  const start = () => {
    child = new Deno.Command(Deno.execPath(), {
      args: [...launcher(), ...args],
      env: { VITRINE_SECRET: secret },
      stdin: "null",
      // Its own process group: Ctrl+C reaches it once, from here, not twice (which would be
      // "stop now" instead of a drain).
      detached: true,
    }).spawn();
    const running = child;
    running.status.then((status) => {
      if (child !== running) return;
      child = null;
      lastCode = status.code;
      if (!stopping) {
        console.error(
          `Vitrine --reload: the server exited (${status.signal ?? `exit code ${status.code}`}); ` +
            "it starts again when a watched file changes",
        );
      }
    });
  };
  const stopChild = async () => {
    const running = child;
    if (!running) return;
    try {
      running.kill("SIGINT");
    } catch {
      // it has just ended
    }
    lastCode = (await running.status).code;
    if (child === running) child = null;
  };

  const watchers = [
    ...(folders.length ? [Deno.watchFs(folders, { recursive: true })] : []),
    ...(files.size
      ? [Deno.watchFs([...new Set([...files].map(dirname))], { recursive: false })]
      : []),
  ];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = "";
  const restart = async () => {
    timer = undefined;
    console.error(`Vitrine --reload: ${changed} changed; restarting`);
    await stopChild();
    if (!stopping) start();
  };
  const onEvent = (event: Deno.FsEvent) => {
    if (event.kind === "access" || stopping) return;
    const path = event.paths.find((path) =>
      files.has(path) ||
      (folders.some((folder) => path.startsWith(folder + "/") || path === folder) &&
        !SQLITE_SIDE_FILE.test(path) && !SQLITE_FILE.test(path))
    );
    if (path === undefined) return;
    changed = path;
    clearTimeout(timer);
    timer = setTimeout(() => void restart(), SETTLE_MS);
  };
  const pumps = watchers.map(async (watcher) => {
    for await (const event of watcher) onEvent(event);
  });

  let stopped!: () => void;
  const done = new Promise<void>((resolve) => stopped = resolve);
  const listeners: [Deno.Signal, () => void][] = [];
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const listener = async () => {
      stopping = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      await stopChild();
      stopped();
    };
    Deno.addSignalListener(signal, listener);
    listeners.push([signal, listener]);
  }
  start();
  await done;
  await Promise.allSettled(pumps);
  for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  return lastCode;
}

/** The child's arguments: these without `--reload`, on the port chosen once. */
export function childArgs(args: readonly string[], port: number | null): string[] {
  const kept = args.filter((arg) => arg !== "--reload");
  // Commander keeps the last value of an option given twice.
  return port === null ? kept : [...kept, "--port", String(port)];
}

/**
 * Absolute paths to watch: folders recursively; a file through its folder (editors save by
 * writing a new file and renaming it over the old one, which a watch on the file itself misses).
 */
function watchTargets(paths: readonly string[]): { files: Set<string>; folders: string[] } {
  const files = new Set<string>();
  const folders: string[] = [];
  for (const path of paths) {
    let real: string;
    try {
      real = Deno.realPathSync(path);
    } catch {
      continue;
    }
    if (isDirectory(real)) folders.push(real);
    else files.add(resolve(real));
  }
  if (!files.size && !folders.length) {
    console.error(
      "Vitrine --reload: nothing to watch (no metadata, templates, plugins or immutable files)",
    );
  }
  return { files, folders };
}
