/**
 * The Dockerfile of a build context: the official Deno image (Debian variant, the Deno version
 * that writes it), SQLite from Debian, the files owned by and run as the image's non-root `deno`
 * user, every plugin and its dependencies cached at build time so the container needs no
 * network (`--cached-only`), the V8 flags that bound the server's memory (`util/v8_flags.ts`:
 * Cloud Run's default container has 512 MB), and a health check on `/-/versions.json`.
 *
 * @module
 */

import { V8_FLAGS_OPTION } from "../../../util/v8_flags.ts";

/** The port Vitrine listens on inside the image. */
export const IMAGE_PORT = 8001;

/** What goes into the Dockerfile. */
export interface DockerfileOptions {
  /** `vitrine serve` arguments (after the program). */
  serveArgs: string[];
  /** Environment baked into the image (`VITRINE_PLUGINS`, and secrets when asked to). */
  env: Record<string, string>;
  /** Plugins to import once at build time, so they and their dependencies are cached. */
  cachePlugins: boolean;
  /** `--plugins-dir` inside the image, for that build-time import. */
  pluginsDir: string | null;
  /** Deno version of the base image (default: the running Deno's). */
  denoVersion?: string;
}

/** The Dockerfile text. */
export function dockerfile(options: DockerfileOptions): string {
  const version = options.denoVersion ?? Deno.version.deno;
  const run = ["deno", "run", "-A", "--cached-only", V8_FLAGS_OPTION, "/app/vitrine.js"];
  const lines = [
    "# Written by Vitrine. Build with: docker build -t NAME .",
    `FROM denoland/deno:debian-${version}`,
    "",
    "# Vitrine reads SQLite through the system library.",
    "RUN apt-get update \\",
    "  && apt-get install -y --no-install-recommends libsqlite3-0 \\",
    "  && rm -rf /var/lib/apt/lists/*",
    "",
    "WORKDIR /app",
    "COPY --chown=deno:deno . /app",
    "USER deno",
  ];
  const env = Object.entries(options.env);
  if (env.length) {
    lines.push("");
    for (const [name, value] of env) lines.push(`ENV ${name}=${JSON.stringify(value)}`);
  }
  lines.push("", "# Compile Vitrine and cache it in DENO_DIR.", "RUN deno cache /app/vitrine.js");
  if (options.cachePlugins) {
    const list = ["deno", "run", "-A", "/app/vitrine.js", "plugins"];
    if (options.pluginsDir) list.push("--plugins-dir", options.pluginsDir);
    lines.push(
      "",
      "# Import every plugin once: they and their npm/remote dependencies land in DENO_DIR,",
      "# so the container runs with --cached-only and no network.",
      `RUN ${list.join(" ")} > /dev/null`,
    );
  }
  lines.push(
    "",
    `EXPOSE ${IMAGE_PORT}`,
    "HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \\",
    `  CMD ${JSON.stringify(["deno", "eval", healthCheckScript()])}`,
    "",
    "# tini (in the base image) forwards signals, so docker stop drains the server.",
    `ENTRYPOINT ${JSON.stringify(["/tini", "--", ...run])}`,
    `CMD ${JSON.stringify(options.serveArgs)}`,
    "",
  );
  return lines.join("\n");
}

/** The health check: exit 0 when `/-/versions.json` answers 200. */
function healthCheckScript(): string {
  return `const r = await fetch("http://127.0.0.1:${IMAGE_PORT}/-/versions.json"); ` +
    "Deno.exit(r.ok ? 0 : 1);";
}
