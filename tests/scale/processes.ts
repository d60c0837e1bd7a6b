/**
 * Helpers for the scale-out tests: Vitrine server processes (`deno run -A cli.ts serve …`) whose
 * whole output the test can read, HAProxy in front of them, and free ports.
 */

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** A running `vitrine serve` process. */
export interface VitrineProcess {
  /** Base URL ending in `/`. */
  url: string;
  port: number;
  /** Everything printed so far on stdout (the access log, the root link…). */
  stdout(): string;
  stderr(): string;
  /** Sends a signal. */
  kill(signal: Deno.Signal): void;
  /** Resolves with the exit status. */
  status: Promise<Deno.CommandStatus>;
  /** SIGTERM, then waits for the exit (and the output pipes). */
  stop(): Promise<Deno.CommandStatus>;
}

/** A free TCP port on 127.0.0.1 (free when asked; another process could take it after). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Reads a stream of text into a growing string. */
function collect(stream: ReadableStream<Uint8Array>): { text(): string; done: Promise<void> } {
  let text = "";
  const done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (text += chunk) }),
  ).catch(() => {});
  return { text: () => text, done };
}

/** Resolves once `condition()` is true, checking every 25 ms; rejects after `ms`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 30_000,
): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts `vitrine serve ARGS` on `port` (0: a free one) and waits until it serves. */
export async function startVitrine(
  args: string[],
  options: { port?: number; env?: Record<string, string> } = {},
): Promise<VitrineProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, "serve", ...args, "-p", String(options.port ?? 0)],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });
  const pattern = /serving on http:\/\/127\.0\.0\.1:(\d+)\//;
  await waitFor(() => pattern.test(out.text()) || exited, "the server to listen", 60_000);
  if (!pattern.test(out.text())) {
    await Promise.all([out.done, err.done]);
    throw new Error(`The server exited before listening:\n${out.text()}\n${err.text()}`);
  }
  const port = Number(pattern.exec(out.text())![1]);
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    stdout: out.text,
    stderr: err.text,
    kill: (signal) => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    },
    status,
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const result = await status;
      await Promise.all([out.done, err.done]);
      return result;
    },
  };
}

/** True when Debian's `haproxy` can be run here. */
export function haproxyPath(): string | null {
  for (const path of ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not here */ }
  }
  return null;
}

/**
 * The HAProxy configuration the tests use (and docs/scaling.md shows): round-robin over the
 * replicas, each health-checked on `/-/health`, with the name of the replica that answered in
 * an `X-Served-By` response header.
 */
export function haproxyConfig(port: number, replicas: number[]): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch

frontend web
  bind 127.0.0.1:${port}
  default_backend vitrine

backend vitrine
  balance roundrobin
  option httpchk GET /-/health
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
  http-response set-header X-Served-By %[srv_name]
${replicas.map((p, i) => `  server r${i + 1} 127.0.0.1:${p} check`).join("\n")}
`;
}

/** HAProxy running in the foreground on a config file in `dir`. */
export interface Balancer {
  url: string;
  stop(): Promise<void>;
  output(): string;
}

/** Starts HAProxy in front of `replicas` and waits until it accepts connections. */
export async function startHaproxy(dir: string, replicas: number[]): Promise<Balancer> {
  const port = freePort();
  const config = `${dir}/haproxy.cfg`;
  await Deno.writeTextFile(config, haproxyConfig(port, replicas));
  const child = new Deno.Command(haproxyPath()!, {
    args: ["-db", "-f", config],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  let exited = false;
  child.status.then(() => exited = true);
  await waitFor(async () => {
    if (exited) return true;
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return true;
    } catch {
      return false;
    }
  }, "HAProxy to listen");
  if (exited) throw new Error(`HAProxy did not start:\n${out.text()}\n${err.text()}`);
  return {
    url: `http://127.0.0.1:${port}/`,
    output: () => out.text() + err.text(),
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await Promise.all([out.done, err.done]);
    },
  };
}
